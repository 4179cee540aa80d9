using System.Security.Cryptography;
using System.Text;
using System.Text.Json.Nodes;
using System.Text.Json.Serialization;
using Salsa.Gateway.Hops;
using Salsa.Gateway.Operations;

namespace Salsa.Gateway.Runs;

/// <summary>Life of a run (the same states as a service job).</summary>
[JsonConverter(typeof(JsonStringEnumConverter<RunState>))]
public enum RunState
{
    [JsonStringEnumMemberName("queued")]
    Queued,
    [JsonStringEnumMemberName("running")]
    Running,
    [JsonStringEnumMemberName("succeeded")]
    Succeeded,
    [JsonStringEnumMemberName("failed")]
    Failed,
    [JsonStringEnumMemberName("cancelled")]
    Cancelled,

    /// <summary>The gateway stopped while the run was in flight and the run could not be resumed.</summary>
    [JsonStringEnumMemberName("interrupted")]
    Interrupted,
}

[JsonConverter(typeof(JsonStringEnumConverter<StepState>))]
public enum StepState
{
    [JsonStringEnumMemberName("pending")]
    Pending,
    [JsonStringEnumMemberName("running")]
    Running,
    [JsonStringEnumMemberName("succeeded")]
    Succeeded,
    [JsonStringEnumMemberName("failed")]
    Failed,
    [JsonStringEnumMemberName("cancelled")]
    Cancelled,

    /// <summary>Not run: a step failed first (after a failure no new step starts), or one it depends on did not succeed.</summary>
    [JsonStringEnumMemberName("skipped")]
    Skipped,
}

/// <summary>A step of a run, as the API shows it.</summary>
public sealed record StepView
{
    public required string Id { get; init; }

    public required string Service { get; init; }

    public required string Operation { get; init; }

    public IReadOnlyList<string> DependsOn { get; init; } = [];

    /// <summary>The step's parameters as it runs them: the workflow's values with the run's overrides.</summary>
    public IReadOnlyDictionary<string, JsonNode?> Parameters { get; init; } = new Dictionary<string, JsonNode?>();

    public StepState State { get; init; }

    public int Attempts { get; init; }

    public DateTimeOffset? Started { get; init; }

    public DateTimeOffset? Finished { get; init; }

    public double? DurationMs { get; init; }

    public string? Error { get; init; }

    public StepProgress? Progress { get; init; }

    /// <summary>
    /// The progress the latest attempt reported, in order, thinned to at most
    /// <see cref="ProgressHistoryLimit"/> points (every other one dropped when full, the first kept):
    /// a finished run keeps the shape of its convergence.
    /// </summary>
    public IReadOnlyList<StepProgress> ProgressHistory { get; init; } = [];

    public const int ProgressHistoryLimit = 240;

    public JsonObject? Outputs { get; init; }

    /// <summary>True when the step's outputs were kept from before a gateway restart (the run was resumed).</summary>
    public bool Reused { get; init; }

    /// <summary>
    /// The service jobs the step's latest attempt started, in order: a gateway that stops mid-step
    /// finds them here when the run resumes, and watches them again instead of starting new ones.
    /// </summary>
    public IReadOnlyList<StepJob> Jobs { get; init; } = [];

    /// <summary>
    /// The state of the service job the step waits on, as the service reports it: <c>queued</c> while
    /// the service has accepted it and not started it (behind other jobs of that service), then
    /// <c>running</c>, then its end; null for a step that starts no job.
    /// </summary>
    public string? JobState { get; init; }
}

/// <summary>A job a step started on a service.</summary>
public sealed record StepJob(string Service, string JobId);

internal static class ProgressHistory
{
    /// <summary><paramref name="history"/> with <paramref name="progress"/> after it; when that passes the limit, every other point dropped (the first and the new one kept).</summary>
    public static IReadOnlyList<StepProgress> Append(IReadOnlyList<StepProgress> history, StepProgress progress)
    {
        if (history.Count < StepView.ProgressHistoryLimit)
        {
            return [.. history, progress];
        }

        var thinned = new List<StepProgress>(StepView.ProgressHistoryLimit / 2 + 1);
        for (var i = 0; i < history.Count; i += 2)
        {
            thinned.Add(history[i]);
        }

        thinned.Add(progress);
        return thinned;
    }
}

/// <summary>
/// A file a run kept: the step's service job stored it and keeps it; the run refers to it by that
/// job (<see cref="Job"/>) and every download reads the service's one copy. Runs recorded before
/// artifacts stayed with their jobs have no job here: their copy is the run's own.
/// </summary>
public sealed record RunArtifactView(string Name, string ContentType, long Size, string Step, StepJob? Job = null);

/// <summary>A run, as the API returns it and the store keeps it.</summary>
public sealed record RunView
{
    public required Guid Id { get; init; }

    public required string Workflow { get; init; }

    public RunState State { get; init; }

    public DateTimeOffset Created { get; init; }

    public DateTimeOffset? Started { get; init; }

    public DateTimeOffset? Finished { get; init; }

    public string? Error { get; init; }

    /// <summary>The W3C trace id of the run's trace (gateway and every service).</summary>
    public string? TraceId { get; init; }

    /// <summary>The parameter overrides the run was started with (<c>step.parameter</c> → value); the workflow's defaults apply to the rest.</summary>
    public IReadOnlyDictionary<string, JsonNode?> Parameters { get; init; } = new Dictionary<string, JsonNode?>();

    /// <summary>The workflow's text the run ran, as the first 12 hex digits of its SHA-256: runs of different versions of a workflow differ here.</summary>
    public string? WorkflowVersion { get; init; }

    /// <summary>The run this one re-ran (with the same workflow text, and its parameters with any changes).</summary>
    public Guid? RerunOf { get; init; }

    /// <summary>How often the run was resumed after a gateway restart.</summary>
    public int Resumes { get; init; }

    public IReadOnlyList<StepView> Steps { get; init; } = [];

    public IReadOnlyList<Hop> Hops { get; init; } = [];

    /// <summary>The calls made and not yet ended, while the run is live (a stored run has none).</summary>
    public IReadOnlyList<HopInFlight> HopsInFlight { get; init; } = [];

    public IReadOnlyList<RunArtifactView> Artifacts { get; init; } = [];
}

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

/// <summary>Which of the caller's runs a list shows (a null filter selects any) and which page of them, newest first.</summary>
public sealed record RunQuery
{
    /// <summary>The workflow's name.</summary>
    public string? Workflow { get; init; }

    public RunState? State { get; init; }

    /// <summary>Created at or after.</summary>
    public DateTimeOffset? From { get; init; }

    /// <summary>Created before.</summary>
    public DateTimeOffset? Before { get; init; }

    public int Offset { get; init; }

    public int Limit { get; init; } = 50;

    public const int MaxLimit = 1000;

    public const int MaxOffset = 1_000_000;

    /// <summary>A query from a caller's words (REST's query string, gRPC's fields): each checked, or an <see cref="ArgumentException"/> naming it.</summary>
    public static RunQuery Of(string? workflow, string? state, DateTimeOffset? from, DateTimeOffset? before, int? offset, int? limit)
    {
        if (limit is < 1 or > MaxLimit)
        {
            throw new ArgumentException($"limit must be between 1 and {MaxLimit} (it is {limit}).");
        }

        if (offset is < 0 or > MaxOffset)
        {
            throw new ArgumentException($"offset must be between 0 and {MaxOffset:N0} (it is {offset}).");
        }

        if (workflow is { Length: > 200 })
        {
            throw new ArgumentException("workflow is a workflow's name: at most 200 characters.");
        }

        RunState? parsed = null;
        if (!string.IsNullOrEmpty(state))
        {
            parsed = Enum.TryParse<RunState>(state, ignoreCase: true, out var value) && Enum.IsDefined(value) && !char.IsDigit(state[0])
                ? value
                : throw new ArgumentException($"state '{(state.Length > 40 ? state[..40] + "…" : state)}' is not a run's state (queued, running, succeeded, failed, cancelled, interrupted).");
        }

        if (from is { } f && before is { } b && b <= f)
        {
            throw new ArgumentException("before must be later than from.");
        }

        return new RunQuery
        {
            Workflow = string.IsNullOrEmpty(workflow) ? null : workflow,
            State = parsed,
            From = from,
            Before = before,
            Offset = offset ?? 0,
            Limit = limit ?? 50,
        };
    }
}

/// <summary>A page of runs and how many the query selects in all.</summary>
public sealed record RunPage(IReadOnlyList<RunView> Runs, int Total);

/// <summary>A re-run: changes to the recorded parameters (a null value drops an override, so the workflow's default applies).</summary>
public sealed record RerunRequest(Dictionary<string, JsonNode?>? Parameters);

/// <summary>What the run's event stream carries.</summary>
public abstract record RunEvent
{
    public sealed record RunChanged(RunView View) : RunEvent;

    public sealed record StepChanged(StepView View) : RunEvent;

    public sealed record ProgressReported(string StepId, StepProgress Update) : RunEvent;

    public sealed record HopRecorded(Hop Hop) : RunEvent;

    public sealed record HopBegan(HopInFlight Call) : RunEvent;
}

/// <summary>What a run was asked to run: kept with it so a restarted gateway can resume it, and a re-run repeat it.</summary>
public sealed record RunRequestRecord(string Workflow, string Yaml, string? File, IReadOnlyDictionary<string, JsonNode?> Parameters)
{
    /// <summary>The first 12 hex digits of the SHA-256 of the workflow's text.</summary>
    public string Version => Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(Yaml)))[..12];
}
