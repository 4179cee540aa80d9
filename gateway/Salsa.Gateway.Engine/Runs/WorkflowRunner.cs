using System.Diagnostics;
using System.Text.Json.Nodes;
using Grpc.Core;
using Salsa.Contracts.Operations;
using Salsa.Gateway.Catalog;
using Salsa.Gateway.Services;
using Salsa.Gateway.Workflows;

namespace Salsa.Gateway.Runs;

/// <summary>
/// Executes a run's DAG: every step starts as soon as the steps it depends on have succeeded, so
/// independent steps run concurrently. A step attempt is bounded by its timeout and retried by its
/// policy; a step that fails for good stops new steps from starting (running ones finish) and the
/// steps after it are skipped. Each step is an Activity under the run's, so one trace spans the
/// gateway and every service it calls.
/// </summary>
internal sealed class WorkflowRunner(OperationCatalog catalog, ServiceDirectory services, ILogger<WorkflowRunner> logger)
{
    public static readonly ActivitySource Activities = new(RunEngine.ActivitySourceName);

    /// <summary>Runs the steps not yet succeeded; returns the failure that ended the run, or null.</summary>
    public async Task<string?> RunAsync(LiveRun run, RunPersister persist)
    {
        var token = run.Cancellation.Token;
        var running = new Dictionary<Task<string?>, StepDefinition>();
        string? failure = null;
        while (true)
        {
            // A failed step stops only what depends on it: the other branches go on (their steps'
            // inputs all succeeded), and the run ends failed once nothing more can start.
            if (!token.IsCancellationRequested)
            {
                var ready = run.Workflow.Order
                    .Where(step => run.Step(step.Id).State == StepState.Pending && !running.ContainsValue(step)
                        && step.DependsOn.All(d => run.Step(d).State == StepState.Succeeded))
                    .ToList();
                foreach (var step in ready)
                {
                    // Steps ready together each begin on a pool thread, so none waits for another's
                    // start; one ready alone begins on this thread, with no hop (a chain's next step).
                    running.Add(RunStepAsync(run, step, persist, onPool: ready.Count > 1), step);
                }
            }

            if (running.Count == 0)
            {
                break;
            }

            var done = await Task.WhenAny(running.Keys).ConfigureAwait(false);
            running.Remove(done);
            failure ??= await done.ConfigureAwait(false);
        }

        // Whatever did not start is skipped, with why: a step it needs did not succeed, or the run
        // was cancelled before it could start (a step that never ran was not cancelled).
        foreach (var step in run.Workflow.Order.Where(s => run.Step(s.Id).State == StepState.Pending))
        {
            var blocked = step.DependsOn.FirstOrDefault(d => run.Step(d).State != StepState.Succeeded);
            var reason = blocked is null ? "not run: the run was cancelled before it could start"
                : run.Step(blocked).State == StepState.Skipped ? $"not run: step '{blocked}' did not run"
                : $"not run: step '{blocked}' {Lower(run.Step(blocked).State)}";
            run.UpdateStep(step.Id, s => s with { State = StepState.Skipped, Error = reason });
        }

        return failure;
    }

    private static string Lower(StepState state) => state.ToString().ToLowerInvariant();

    /// <summary>One step, with its attempts; returns a failure message or null when it succeeded.</summary>
    private async Task<string?> RunStepAsync(LiveRun run, StepDefinition step, RunPersister persist, bool onPool)
    {
        if (onPool)
        {
            await Task.Yield();
        }

        var spec = catalog.Find(step.Service, step.Operation) ?? throw new InvalidOperationException($"No operation {step.Service}.{step.Operation}.");
        var inputs = step.Inputs.ToDictionary(i => i.Key, i => run.Step(i.Value.Step).Outputs?[i.Value.Output]?.DeepClone(), StringComparer.Ordinal);
        var clock = Stopwatch.GetTimestamp();
        // Jobs the step started before the gateway stopped (a resumed run): the first attempt takes them up again.
        var earlier = run.Step(step.Id).Jobs;
        run.UpdateStep(step.Id, s => s with { State = StepState.Running, Started = DateTimeOffset.UtcNow, Error = null, Attempts = 0 });
        persist.Changed();
        using var activity = Activities.StartActivity($"step {step.Id}");
        activity?.SetTag("salsa.step", step.Id);
        activity?.SetTag("salsa.operation", spec.Key);
        RunLog.StepStarted(logger, run.Id, step.Id, spec.Key);
        try
        {
            return await AttemptsAsync(run, step, spec, inputs, earlier, clock, persist, activity).ConfigureAwait(false);
        }
#pragma warning disable CA1031 // Whatever escapes the attempts' own handling ends the step failed, never leaves it running.
        catch (Exception exception)
#pragma warning restore CA1031
        {
            var error = $"{exception.GetType().Name}: {exception.Message}";
            run.UpdateStep(step.Id, s => s with { State = StepState.Failed, Finished = DateTimeOffset.UtcNow, DurationMs = Stopwatch.GetElapsedTime(clock).TotalMilliseconds, Error = error });
            activity?.SetStatus(ActivityStatusCode.Error, error);
            persist.Changed();
            return $"step '{step.Id}' ({spec.Key}) failed: {error}";
        }
        finally
        {
            var ended = run.Step(step.Id);
            var durationMs = ended.DurationMs ?? Stopwatch.GetElapsedTime(clock).TotalMilliseconds;
            RunLog.StepEnded(logger, run.Id, step.Id, spec.Key, ended.State, durationMs, ended.Attempts);
        }
    }

    /// <summary>The step's attempts, until one succeeds, the step fails for good, or the run is cancelled.</summary>
    private async Task<string?> AttemptsAsync(LiveRun run, StepDefinition step, OperationSpec spec, Dictionary<string, JsonNode?> inputs, IReadOnlyList<StepJob> earlier,
        long clock, RunPersister persist, Activity? activity)
    {
        for (var attempt = 1; ; attempt++)
        {
            run.UpdateStep(step.Id, s => s with { Attempts = attempt, Progress = null, ProgressHistory = [], Jobs = [], JobState = null }); // progress and jobs are per attempt
            using var timeout = CancellationTokenSource.CreateLinkedTokenSource(run.Cancellation.Token);
            if (step.Timeout is { } limit)
            {
                timeout.CancelAfter(limit);
            }

            string error;
            bool retryable;
            try
            {
                var context = new StepContext(step, inputs, services, run.Hops, p => run.Report(step.Id, p), timeout.Token)
                {
                    Earlier = attempt == 1 ? earlier : [],
                    JobStarted = async job =>
                    {
                        run.UpdateStep(step.Id, s => s with { Jobs = [.. s.Jobs, job], JobState = "queued" });
                        await persist.FlushAsync().ConfigureAwait(false);
                    },
                    JobStateChanged = state =>
                    {
                        if (run.Step(step.Id).JobState != state)
                        {
                            run.UpdateStep(step.Id, s => s with { JobState = state });
                        }
                    },
                };
                var outcome = await spec.Execute(context).ConfigureAwait(false);
                var made = await StepDigests.OfAsync(spec, outcome, context).ConfigureAwait(false);
                KeepArtifacts(run, step, outcome, made);
                var outputs = new JsonObject(outcome.Outputs.Select(o => KeyValuePair.Create(o.Key, o.Value)));
                run.UpdateStep(step.Id, s => s with
                {
                    State = StepState.Succeeded,
                    Finished = DateTimeOffset.UtcNow,
                    DurationMs = Stopwatch.GetElapsedTime(clock).TotalMilliseconds,
                    Outputs = outputs,
                    Digests = made.Digests,
                });
                run.UpdateWhole(v => v with
                {
                    Provenance = v.Provenance?.WithRdkit(made.RdkitReleases),
                    Reproduction = v.Reproduction?.Compared(v, run.Workflow.Order, ended: false),
                });
                // Stored in the background, like starts and failures: every write stores the whole
                // view, so the store never holds a step without the steps it built on, and a step that
                // starts a service job waits for that job's write (JobStarted), which carries this one.
                // A crash before it lands costs the step being run again when the run resumes.
                persist.Changed();
                return null;
            }
            catch (Exception exception) when (run.Cancellation.IsCancellationRequested && exception is OperationCanceledException or RpcException)
            {
                run.UpdateStep(step.Id, s => s with
                {
                    State = run.Stopping ? StepState.Pending : StepState.Cancelled,
                    Finished = run.Stopping ? null : DateTimeOffset.UtcNow,
                    DurationMs = Stopwatch.GetElapsedTime(clock).TotalMilliseconds,
                    Error = run.Stopping ? "The gateway stopped during this step; it runs again when the run resumes." : "Cancelled with the run.",
                });
                activity?.SetStatus(ActivityStatusCode.Error, "cancelled");
                return run.Stopping ? "The gateway stopped." : "Cancelled.";
            }
            catch (Exception exception) when (timeout.IsCancellationRequested && exception is OperationCanceledException or RpcException)
            {
                error = $"attempt {attempt} timed out after {step.Timeout}";
                retryable = true;
            }
            catch (RpcException exception)
            {
                error = $"{exception.StatusCode}: {exception.Status.Detail}";
                // Worth another attempt: a service away or overloaded, a fault on its side. Not: bad input, a limit, a missing id.
                retryable = exception.StatusCode is StatusCode.Unavailable or StatusCode.Internal or StatusCode.Unknown or StatusCode.DeadlineExceeded or StatusCode.Aborted
                    || Hops.HopRecorder.RetryDelay(exception) is not null;
            }
            catch (Exception exception) when (exception is StepFailedException or HttpRequestException or IOException or InvalidDataException)
            {
                error = exception.Message;
                retryable = true;
            }
#pragma warning disable CA1031 // Whatever else an operation throws fails its step (not the run's bookkeeping, nor the gateway).
            catch (Exception exception)
#pragma warning restore CA1031
            {
                error = $"{exception.GetType().Name}: {exception.Message}";
                retryable = false;
            }

            RunLog.StepAttemptFailed(logger, run.Id, step.Id, attempt, error);
            if (!retryable || attempt >= step.Retry.Attempts)
            {
                var message = $"step '{step.Id}' ({spec.Key}) failed{(attempt > 1 ? $" after {attempt} attempts" : "")}: {error}";
                run.UpdateStep(step.Id, s => s with
                {
                    State = StepState.Failed,
                    Finished = DateTimeOffset.UtcNow,
                    DurationMs = Stopwatch.GetElapsedTime(clock).TotalMilliseconds,
                    Error = error,
                });
                activity?.SetStatus(ActivityStatusCode.Error, error);
                persist.Changed();
                return message;
            }

            run.UpdateStep(step.Id, s => s with { Error = $"{error}; retrying" });
            try
            {
                await Task.Delay(step.Retry.DelayBefore(attempt + 1), run.Cancellation.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                // The next attempt sees the cancellation and records it.
            }
        }
    }

    /// <summary>
    /// Records the files the step keeps, with their digests: each stays with the service job that
    /// stored it and the run refers to it by that job, so it moves once — downloads and <c>out/</c>
    /// read the service's copy. A file the job did not store fails the step here, not a download later.
    /// </summary>
    private static void KeepArtifacts(LiveRun run, StepDefinition step, StepOutcome outcome, StepDigests made)
    {
        if (step.Artifacts.Count == 0)
        {
            return;
        }

        var job = outcome.Job ?? throw new InvalidOperationException($"Step '{step.Id}' keeps files but its operation ran no job.");
        var stored = made.Files[job].ToDictionary(a => a.Name, StringComparer.Ordinal);
        foreach (var name in step.Artifacts)
        {
            var file = stored.GetValueOrDefault(name)
                ?? throw new StepFailedException($"The {job.Service} job {job.JobId} stored no '{name}' file; it stored {(stored.Count == 0 ? "none" : string.Join(", ", stored.Keys.Select(k => $"'{k}'")))}.");
            run.AddArtifact(new RunArtifactView(name, file.ContentType, file.Size, step.Id, new StepJob(job.Service, job.JobId), file.Sha256.Length == 0 ? null : file.Sha256));
        }
    }
}

internal static partial class RunLog
{
    [LoggerMessage(Level = LogLevel.Warning, Message = "Run {RunId}: step {Step} attempt {Attempt} failed: {Error}")]
    public static partial void StepAttemptFailed(ILogger logger, Guid runId, string step, int attempt, string error);

    [LoggerMessage(Level = LogLevel.Information, Message = "Run {RunId} ({Workflow}) accepted, {Steps} steps")]
    public static partial void Accepted(ILogger logger, Guid runId, string workflow, int steps);

    [LoggerMessage(Level = LogLevel.Information, Message = "Run {RunId}: step {Step} ({Operation}) started")]
    public static partial void StepStarted(ILogger logger, Guid runId, string step, string operation);

    [LoggerMessage(Level = LogLevel.Information, Message = "Run {RunId}: step {Step} ({Operation}) {State} in {DurationMs:F1} ms after {Attempts} attempt(s)")]
    public static partial void StepEnded(ILogger logger, Guid runId, string step, string operation, StepState state, double durationMs, int attempts);

    [LoggerMessage(Level = LogLevel.Information, Message = "Run {RunId} ({Workflow}) ended {State}")]
    public static partial void Ended(ILogger logger, Guid runId, string workflow, RunState state);

    [LoggerMessage(Level = LogLevel.Information, Message = "Run {RunId} ({Workflow}) resumed after a gateway restart; {Kept} steps kept")]
    public static partial void Resumed(ILogger logger, Guid runId, string workflow, int kept);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Run {RunId} marked interrupted: {Reason}")]
    public static partial void MarkedInterrupted(ILogger logger, Guid runId, string reason);

    [LoggerMessage(Level = LogLevel.Error, Message = "Run {RunId} could not be stored (the next change tries again): {Error}")]
    public static partial void StoreWriteFailed(ILogger logger, Guid runId, string error);
}
