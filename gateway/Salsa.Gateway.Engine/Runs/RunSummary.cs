using System.Text.Json.Nodes;

namespace Salsa.Gateway.Runs;

/// <summary>A run in a list: no hops, no outputs.</summary>
public sealed record RunSummary(Guid Id, string Workflow, RunState State, DateTimeOffset Created, DateTimeOffset? Started, DateTimeOffset? Finished,
    string? Error, int Steps, int StepsSucceeded, int Hops, string? TraceId, IReadOnlyDictionary<string, JsonNode?> Parameters, string? WorkflowVersion, Guid? RerunOf,
    IReadOnlyList<StepCell> StepStates)
{
    public static RunSummary Of(RunView run)
    {
        ArgumentNullException.ThrowIfNull(run);
        return new(run.Id, run.Workflow, run.State, run.Created, run.Started, run.Finished, run.Error, run.Steps.Count,
            run.Steps.Count(s => s.State == StepState.Succeeded), run.Hops.Count, run.TraceId, run.Parameters, run.WorkflowVersion, run.RerunOf,
            [.. run.Steps.Select(s => new StepCell(s.Id, s.State, s.JobState, s.DurationMs))]);
    }
}

/// <summary>A step of a run as a list shows it (a cell of the console's runs × steps grid): its state, its service job's state, how long it took.</summary>
public sealed record StepCell(string Id, StepState State, string? JobState, double? DurationMs);
