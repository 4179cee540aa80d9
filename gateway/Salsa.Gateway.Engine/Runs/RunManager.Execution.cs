using System.Diagnostics;
using System.Text.Json;
using Salsa.Gateway.Workflows;
using Salsa.Hosting.Security;
using Salsa.Store;

namespace Salsa.Gateway.Runs;

/// <summary>A run's life on the thread pool: executed step by step, ended and stored, recovered after a restart.</summary>
public sealed partial class RunManager
{
    /// <summary>
    /// Starts the run on the thread pool, queued on this thread's own queue: the submitting thread,
    /// about to wait for the run or answer its caller, takes it up as soon as it is free, unless an
    /// idle thread steals it first (a hop through the global queue waits for a sleeping thread to wake).
    /// </summary>
    private void Start(LiveRun run) =>
        ThreadPool.QueueUserWorkItem(static state => _ = state.Manager.ExecuteAsync(state.Run), (Manager: this, Run: run), preferLocal: true);

    private async Task ExecuteAsync(LiveRun run)
    {
        using var tenant = CallerTenant.Enter(run.Tenant); // every service call of the run acts for its tenant
        var persist = Persister(run);
        // Hops are stored as they are recorded, so those made before a crash are in the resumed run.
        run.Hops.Recorded += _ => persist.Changed();
        try
        {
            try
            {
                await run.Admitted.Task.WaitAsync(run.Cancellation.Token).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                Release(run);
                await EndAsync(run, persist, run.Stopping ? RunState.Queued : RunState.Cancelled, run.Stopping ? null : "Cancelled while queued.").ConfigureAwait(false);
                return;
            }

            // One trace per run: a new root, whatever the caller's context, carried into every service.
            var previous = Activity.Current;
            Activity.Current = null;
            var activity = WorkflowRunner.Activities.StartActivity($"run {run.Workflow.Name}", ActivityKind.Internal, parentContext: default,
                links: run.StartedBy == default ? null : [new ActivityLink(run.StartedBy)]);
            try
            {
                Activity.Current = activity;
                activity?.SetTag("salsa.run", run.Id.ToString());
                activity?.SetTag("salsa.workflow", run.Workflow.Name);
                // Not stored on its own: the first step's change stores the run (now Running) in the
                // background, and a run the store still shows Queued is resumed exactly like a Running
                // one. Only a service job's id waits for the store; the run's end is stored after its
                // waiters hear it (bench/results/gateway.md).
                run.Update(v => v with { State = RunState.Running, Started = v.Started ?? DateTimeOffset.UtcNow, TraceId = activity?.TraceId.ToString() ?? v.TraceId });
                var failure = await _runner.RunAsync(run, persist).ConfigureAwait(false);
                var state = run.Stopping ? RunState.Running
                    : run.Cancellation.IsCancellationRequested ? RunState.Cancelled
                    : failure is null ? RunState.Succeeded
                    : RunState.Failed;
                activity?.SetStatus(state == RunState.Succeeded ? ActivityStatusCode.Ok : ActivityStatusCode.Error, failure);
                Activity.Current = previous;
                var span = activity;
                activity = null; // ended by EndAsync, before anyone waiting for the run hears it ended
                await EndAsync(run, persist, state, state is RunState.Failed or RunState.Cancelled ? failure : null, span).ConfigureAwait(false);
            }
            finally
            {
                activity?.Dispose();
                Release(run);
            }
        }
#pragma warning disable CA1031 // A run never takes the process down: an unexpected fault is the run's failure, recorded.
        catch (Exception exception)
#pragma warning restore CA1031
        {
            await EndAsync(run, persist, RunState.Failed, $"The gateway failed running this workflow: {exception.Message}").ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Ends the run: whoever waits or watches hears its final view first, then the view is stored
    /// (bench/results/gateway.md). The run stays live until it is stored, so a read in between
    /// gets the final view, and the gateway's stop waits for the write (<see cref="LiveRun.Stored"/>).
    /// A crash in between loses no run: the store still has it running, and it is resumed.
    /// </summary>
    private async Task EndAsync(LiveRun run, RunPersister persist, RunState state, string? error, Activity? span = null)
    {
        var ended = state is not (RunState.Queued or RunState.Running);
        span?.Dispose(); // the run's span has ended (and is exported) once anyone hears the run ended
        run.UpdateWhole(v =>
        {
            var view = v with { State = state, Error = error, Finished = ended ? DateTimeOffset.UtcNow : null };
            return ended && view.Reproduction is { } reproduction ? view with { Reproduction = reproduction.Compared(view, run.Workflow.Order, ended: true) } : view;
        });
        run.Complete();
        if (!run.Refused) // a run the store refused was never accepted: its submit failed
        {
            RunLog.Ended(_logger, run.Id, run.Workflow.Name, state);
            if (ended)
            {
                GatewayMetrics.Ended(run.View());
            }
        }

        try
        {
            await persist.FlushAsync().ConfigureAwait(false);
        }
#pragma warning disable CA1031 // Logged by the persister; the run has ended either way, and a resumed gateway finds it unfinished.
        catch (Exception)
#pragma warning restore CA1031
        {
        }
        finally
        {
            _live.TryRemove(run.Id, out _);
            run.Stored.TrySetResult();
        }
    }

    /// <summary>Stores the run's view in the background as its steps change it (see <see cref="RunPersister"/>).</summary>
    private RunPersister Persister(LiveRun run) =>
        new(run, async (r, token) =>
        {
            if (await r.Inserted.ConfigureAwait(false)) // never before the insert, never for a refused run
            {
                await store.UpdateJobAsync(ToRecord(r), token).ConfigureAwait(false);
            }
        }, _limits.WriteBehind, _logger);

    private async Task RecoverAsync(JobRecord record, CancellationToken cancellationToken)
    {
        var view = FromRecord(record);
        string reason;
        try
        {
            var request = RequestOf(record) ?? throw new InvalidDataException("The run has no request.");
            var workflow = library.Parse(request.Yaml, request.File ?? "inline", request.File, request.Parameters);
            if (_limits.ResumeInterrupted)
            {
                var kept = view.Steps.Count(s => s.State == StepState.Succeeded);
                var resumed = view with
                {
                    State = RunState.Queued,
                    Resumes = view.Resumes + 1,
                    Steps = [.. workflow.Steps.Select(s => view.Steps.FirstOrDefault(v => v.Id == s.Id) is { State: StepState.Succeeded } done
                        ? done with { Reused = true }
                        : new StepView { Id = s.Id, Service = s.Service, Operation = s.Operation, DependsOn = s.DependsOn, Parameters = s.Parameters, Jobs = view.Steps.FirstOrDefault(v => v.Id == s.Id)?.Jobs ?? [] })],
                };
                var run = new LiveRun(resumed, workflow, request, record.Tenant) { Changed = _feed.Publish };
                _live[run.Id] = run;
                await store.UpdateJobAsync(ToRecord(run), cancellationToken).ConfigureAwait(false);
                RunLog.Resumed(_logger, run.Id, workflow.Name, kept);
                _scheduler.Requeue(run.Tenant, run); // accepted before the restart: never refused now
                Start(run);
                return;
            }

            reason = "The gateway stopped while the run was in flight (resuming is off: Gateway:Runs:ResumeInterrupted).";
        }
        catch (Exception exception) when (exception is WorkflowValidationException or JsonException or InvalidDataException)
        {
            reason = $"The gateway stopped while the run was in flight, and it cannot be resumed: {exception.Message}";
        }

        var done = view.Steps.Where(s => s.State == StepState.Succeeded).Select(s => s.Id).ToList();
        reason += done.Count > 0 ? $" Steps that had finished: {string.Join(", ", done)}." : " No step had finished.";
        var interrupted = view with { State = RunState.Interrupted, Finished = DateTimeOffset.UtcNow, Error = reason };
        await store.UpdateJobAsync(ToRecord(interrupted, record.ParametersJson, record.Tenant), cancellationToken).ConfigureAwait(false);
        RunLog.MarkedInterrupted(_logger, record.Id, reason);
    }

    /// <summary>The run leaves the scheduler: out of the queue when it was waiting, else its slot goes to the next tenant in turn.</summary>
    private void Release(LiveRun run)
    {
        if (!_scheduler.TryRemove(run.Tenant, run))
        {
            _scheduler.Completed(run.Tenant);
        }
    }
}
