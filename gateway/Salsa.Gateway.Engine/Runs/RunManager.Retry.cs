using System.Text.Json.Nodes;
using Salsa.Gateway.Workflows;
using Salsa.Hosting.Errors;

namespace Salsa.Gateway.Runs;

/// <summary>What a retry takes from the run it retries: the steps it reuses and their kept files.</summary>
internal sealed record RunRetry(string From, IReadOnlyDictionary<string, StepView> Reused, IReadOnlyList<RunArtifactView> Artifacts);

/// <summary>Runs made again from one of their steps (Airflow's "clear"): that step and everything downstream, the rest reused.</summary>
public sealed partial class RunManager
{
    /// <summary>
    /// A new run of what a run of the caller's ran, from <paramref name="stepId"/>: that step and every
    /// step downstream of it run again (with <paramref name="changes"/> over the run's parameters, for
    /// those steps only), and every other step that succeeded is reused — its outputs, the same
    /// dataset ids, its digests and kept files. The new run's <see cref="RunView.RerunOf"/> names the
    /// old one and <see cref="RunView.RetriedFrom"/> the step. Refused while the run is queued or
    /// running, when a step the retried one reads did not succeed, and for a change to a reused step.
    /// </summary>
    public async Task<RunView> RetryFromAsync(Guid id, string stepId, IReadOnlyDictionary<string, JsonNode?>? changes, CancellationToken cancellationToken = default)
    {
        var (view, request) = await RecordedAsync(id, cancellationToken).ConfigureAwait(false);
        if (!view.Steps.Any(s => s.Id == stepId))
        {
            throw new NotFoundException($"Run {id} has no step '{stepId}'; its steps are {string.Join(", ", view.Steps.Select(s => $"'{s.Id}'"))}.");
        }

        if (view.State is RunState.Queued or RunState.Running)
        {
            throw new ConflictException($"Run {id} is {view.State.ToString().ToLowerInvariant()}: retry from a step once it has ended, or cancel it first.");
        }

        var again = Downstream(Parse(request, request.Parameters), stepId);
        if (changes?.Keys.Select(name => name.Split('.', 2)[0]).FirstOrDefault(owner => !again.Contains(owner)) is { } reusedStep)
        {
            throw new ArgumentException($"Parameter '{changes.Keys.First(n => n.Split('.', 2)[0] == reusedStep)}' is of step '{reusedStep}', whose outputs the retry reuses from run {id}; retry from '{reusedStep}' to change it.");
        }

        var parameters = WithChanges(request.Parameters, changes);
        var workflow = Parse(request, parameters);
        var upstream = workflow.Steps.Where(s => !again.Contains(s.Id) && Reads(workflow, stepId, s.Id)).Select(s => view.Steps.First(v => v.Id == s.Id));
        if (upstream.FirstOrDefault(s => s.State != StepState.Succeeded) is { } missing)
        {
            throw new ConflictException($"Step '{missing.Id}', which '{stepId}' reads, {missing.State.ToString().ToLowerInvariant()} in run {id}: retry from '{missing.Id}' instead.");
        }

        var reused = view.Steps
            .Where(s => !again.Contains(s.Id) && s.State == StepState.Succeeded)
            .ToDictionary(s => s.Id, s => s with { Reused = true, ProgressHistory = [] }, StringComparer.Ordinal);
        var retry = new RunRetry(stepId, reused, [.. view.Artifacts.Where(a => reused.ContainsKey(a.Step))]);
        return await SubmitAsync(workflow, parameters, id, cancellationToken, retry: retry).ConfigureAwait(false);
    }

    /// <summary>The step and every step that reads it, directly or through others.</summary>
    private static HashSet<string> Downstream(WorkflowDefinition workflow, string stepId)
    {
        var found = new HashSet<string>(StringComparer.Ordinal) { stepId };
        foreach (var step in workflow.Order)
        {
            if (step.DependsOn.Any(found.Contains))
            {
                found.Add(step.Id);
            }
        }

        return found;
    }

    /// <summary>Whether <paramref name="stepId"/> reads <paramref name="other"/>, directly or through others.</summary>
    private static bool Reads(WorkflowDefinition workflow, string stepId, string other)
    {
        var pending = new Stack<string>([stepId]);
        var seen = new HashSet<string>(StringComparer.Ordinal);
        while (pending.TryPop(out var id))
        {
            foreach (var dependency in workflow.Step(id).DependsOn)
            {
                if (dependency == other)
                {
                    return true;
                }

                if (seen.Add(dependency))
                {
                    pending.Push(dependency);
                }
            }
        }

        return false;
    }
}
