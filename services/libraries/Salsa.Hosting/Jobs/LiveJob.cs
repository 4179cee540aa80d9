using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Text.Json;
using System.Threading.Channels;
using Microsoft.Extensions.Logging;
using Salsa.Ccr;
using Salsa.Hosting.Compute;
using Salsa.Store;

namespace Salsa.Hosting.Jobs;

// Design: a job the service has accepted and not yet finished. Written by two parties: the jobs
// dispatcher thread that runs it (state changes, progress) and request threads (cancel, watch). The
// record is immutable and swapped under `_gate`; watchers are channels registered under `_gate`, so
// a watcher registered before the final status always receives it, and one registered after sees the
// final record at once. Progress is persisted at most every half second (and at the end), so a fast
// iteration loop never waits on the store. The cancellation source is never disposed: it has no
// timer or linked token (nothing unmanaged to free), and a late Cancel() must never throw.
#pragma warning disable CA1001
internal sealed class LiveJob : ITask, ICancellableJob
{
    private static readonly TimeSpan PersistInterval = TimeSpan.FromMilliseconds(500);

    private readonly JobManager _manager;
    private readonly JobWork _work;
    private readonly object _gate = new();
    private readonly List<Channel<JobEvent>> _watchers = [];
    private readonly CancellationTokenSource _cancellation = new();
    private readonly long _accepted = Stopwatch.GetTimestamp();
    private readonly DateTimeOffset _acceptedAt = DateTimeOffset.UtcNow;
    private readonly JobPhases _phases = new();

    // The span of the call that submitted the job: the job's span is its child, in its trace, and
    // exported by the same service (the job runs on a dispatcher thread, outside any request).
    private readonly Activity? _submitter = Activity.Current;
    private JobRecord _record;
    private long _lastPersisted;
    private bool _finished;
    private string? _lastPhase;
    private volatile bool _timedOut;
    private volatile bool _cancelledByCaller;

    public LiveJob(JobRecord record, JobWork work, JobManager manager)
    {
        _record = record;
        _work = work;
        _manager = manager;
    }

#pragma warning restore CA1001
    public Guid Id => _record.Id;

    public JobRecord Record
    {
        get
        {
            lock (_gate)
            {
                return _record;
            }
        }
    }

    /// <summary>Set once the record is in the store; the job does not start before.</summary>
    public TaskCompletionSource Stored { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>The job's log; set once the job is accepted, before <see cref="Stored"/>.</summary>
    public JobLog Log { get; set; } = new();

    /// <summary>Set when the scheduler gave the job a slot: its end frees it.</summary>
    public bool HoldsSlot { get; set; }

    public void Execute()
    {
        // The job blocks this dispatcher thread until its work and store writes end, so their awaits
        // must not resume here: no synchronization context while it runs.
        var dispatcherContext = SynchronizationContext.Current;
        SynchronizationContext.SetSynchronizationContext(null);
        try
        {
            Run();
        }
        finally
        {
            SynchronizationContext.SetSynchronizationContext(dispatcherContext);
            if (HoldsSlot)
            {
                _manager.Completed(this);
            }
        }
    }

    private void Run()
    {
        try
        {
            Stored.Task.GetAwaiter().GetResult();
        }
        catch (Exception)
        {
            return; // never stored: the submitter reported the failure
        }

        // The work acts for the tenant that submitted the job: what it reads and makes is theirs.
        using var tenant = Security.CallerTenant.Enter(Record.Tenant);

        // What the service logs while the work runs on this flow is the job's too.
        using var logging = JobLogs.Enter(Log);
        var started = DateTimeOffset.UtcNow;
        var queueMs = Stopwatch.GetElapsedTime(_accepted).TotalMilliseconds;
        if (_cancellation.IsCancellationRequested)
        {
            Finish(JobState.Cancelled, started, queueMs, 0, null, "Cancelled before it started.");
            return;
        }

        Update(r => r with { State = JobState.Running, Started = started, QueueMilliseconds = queueMs }, persist: true);
        Log.Append(LogLevel.Information, "job", string.Create(CultureInfo.InvariantCulture, $"started after {queueMs:0.#} ms in the queue"));
        _manager.Metrics.JobQueueTime.Record(queueMs);
        using var span = StartSpan(queueMs);
        JobPhases.Queue(span, _acceptedAt, started);
        var compute = _phases.Start(span);
        var clock = Stopwatch.GetTimestamp();
        var context = new JobContext(this, _manager.Store, _manager.Runtime.Compute, CoreBudget.Process, _manager.Runtime.Ranks, _cancellation.Token);
        // Past its time limit the job is stopped as a cancel would stop it, and ends failed, saying why.
        var (limit, limitKey) = _manager.Runtime.Limits.JobTimeLimit(_record.Kind);
        using var deadline = new Timer(_ =>
        {
            _timedOut = true;
            _cancellation.Cancel();
        }, null, limit, Timeout.InfiniteTimeSpan);
        JobResources? resources = null;
        try
        {
            JobOutcome outcome;
            var meter = context.Meter = JobMeter.Begin();
            try
            {
                outcome = _work(context).GetAwaiter().GetResult();
            }
            catch (Exception exception) when (!(exception is OperationCanceledException && _cancellation.IsCancellationRequested))
            {
                compute?.SetStatus(ActivityStatusCode.Error, exception.Message);
                throw;
            }
            finally
            {
                resources = meter.End(context.RanksTaken);
                context.ReturnCores();
                context.EndProgress();
                _phases.End();
                compute?.Dispose(); // the compute ends here; storing the outcome is the job's, not the compute's
            }

            var computeMs = Stopwatch.GetElapsedTime(clock).TotalMilliseconds;
            span?.SetTag("salsa.job.compute_ms", computeMs);
            Finish(JobState.Succeeded, started, queueMs, computeMs, JsonSerializer.Serialize(outcome.Result, outcome.Result.GetType(), JobJson.Options), null, resources);
        }
        catch (OperationCanceledException) when (_cancellation.IsCancellationRequested && _timedOut && !_manager.Stopping && !_cancelledByCaller)
        {
            var message = string.Create(CultureInfo.InvariantCulture, $"The job computed for its time limit of {limit:c} ({limitKey}) without ending, and was stopped.");
            Log.Append(LogLevel.Warning, "job", message);
            Finish(JobState.Failed, started, queueMs, Stopwatch.GetElapsedTime(clock).TotalMilliseconds, null, message, resources);
        }
        catch (OperationCanceledException) when (_cancellation.IsCancellationRequested)
        {
            Finish(_manager.Stopping ? JobState.Interrupted : JobState.Cancelled, started, queueMs, Stopwatch.GetElapsedTime(clock).TotalMilliseconds, null,
                _manager.Stopping ? JobManager.StoppedReason : "Cancelled.", resources);
        }
#pragma warning disable CA1031 // A job's failure is its outcome: recorded, reported, never lost.
        catch (Exception exception)
#pragma warning restore CA1031
        {
            var validation = Errors.ServiceErrors.Classify(exception) is { Http: HttpStatusCode.BadRequest };
            if (!validation)
            {
                JobLogMessages.JobFailed(_manager.Logger, Id, exception);
            }

            span?.SetStatus(ActivityStatusCode.Error, exception.Message);
            span?.AddException(exception);

            // A fault's own words can hold what a caller may not see (a server path, a driver's text):
            // the caller is told its kind, the service's log has all of it.
            Finish(JobState.Failed, started, queueMs, Stopwatch.GetElapsedTime(clock).TotalMilliseconds, null,
                validation ? Errors.ServiceErrors.Message(exception)
                : Errors.ServiceErrors.Classify(exception) is not null ? $"The job failed: {Errors.ServiceErrors.Message(exception)}"
                : $"The job failed: {exception.GetType().Name} (the {_manager.Service} service's log has the details, job {Id}).", resources);
        }
    }

    /// <summary>Stops the job (a caller's cancel, or the service stopping).</summary>
    public void Cancel()
    {
        _cancelledByCaller = true;
        _cancellation.Cancel();
    }

    /// <summary>The job's span, from its acceptance on: its queue wait and its compute are its children.</summary>
    private Activity? StartSpan(double queueMs)
    {
        var span = SalsaHosting.ActivitySource.CreateActivity($"{_record.Kind} job", ActivityKind.Internal, _submitter?.Context ?? default);
        if (span is null)
        {
            return null;
        }

        if (_submitter is not null && Telemetry.TelemetryOwners.OwnerOf(_submitter) is { } owner)
        {
            span.SetCustomProperty(Telemetry.TelemetryOwners.PropertyName, owner);
        }

        span.SetTag("salsa.job.id", Id.ToString());
        span.SetTag("salsa.job.kind", _record.Kind);
        span.SetTag("salsa.job.queue_ms", queueMs);
        span.SetStartTime(_acceptedAt.UtcDateTime);
        return span.Start();
    }

    public void Report(JobProgressUpdate update)
    {
        _phases.Report(update);
        if (!string.Equals(Interlocked.Exchange(ref _lastPhase, update.Phase), update.Phase, StringComparison.Ordinal))
        {
            Log.Append(LogLevel.Information, "job", string.Create(CultureInfo.InvariantCulture, $"phase {update.Phase} (iteration {update.Iteration}, {update.Clusters} clusters, {update.ElapsedMilliseconds:0} ms in)"));
        }
        var persist = Stopwatch.GetElapsedTime(Interlocked.Read(ref _lastPersisted)) >= PersistInterval;
        Broadcast(new JobEvent.Progress(update));
        if (persist)
        {
            Interlocked.Exchange(ref _lastPersisted, Stopwatch.GetTimestamp());
            Update(r => r with { ProgressJson = JsonSerializer.Serialize(update, JobJson.Options) }, persist: true, broadcast: false);
        }
        else
        {
            Update(r => r with { ProgressJson = JsonSerializer.Serialize(update, JobJson.Options) }, persist: false, broadcast: false);
        }
    }

    /// <summary>A stream of the job's events; ends after the final status.</summary>
    public ChannelReader<JobEvent> Watch()
    {
        var channel = Channel.CreateUnbounded<JobEvent>(new UnboundedChannelOptions { SingleReader = true });
        lock (_gate)
        {
            channel.Writer.TryWrite(new JobEvent.Status(_record));
            if (_finished)
            {
                channel.Writer.TryComplete();
            }
            else
            {
                _watchers.Add(channel);
            }
        }

        return channel.Reader;
    }

    public void Unwatch(ChannelReader<JobEvent> reader)
    {
        lock (_gate)
        {
            _watchers.RemoveAll(c => c.Reader == reader);
        }
    }

    private void Finish(JobState state, DateTimeOffset started, double queueMs, double computeMs, string? resultJson, string? error, JobResources? resources = null)
    {
        _manager.Metrics.JobComputeTime.Record(computeMs);
        if (resources is not null)
        {
            Log.Append(LogLevel.Information, "job", Describe(resources));
        }

        Log.Append(state == JobState.Failed ? LogLevel.Error : state == JobState.Succeeded ? LogLevel.Information : LogLevel.Warning, "job",
            string.Create(CultureInfo.InvariantCulture, $"{state.ToString().ToLowerInvariant()} after {computeMs:0.#} ms of compute{(error is null ? "" : $": {error}")}"));
        Update(r => r with
        {
            State = state,
            Started = r.Started ?? started,
            Finished = DateTimeOffset.UtcNow,
            QueueMilliseconds = queueMs,
            ComputeMilliseconds = computeMs,
            ResultJson = resultJson,
            Error = error,
            Resources = resources,
        }, persist: true);
        List<Channel<JobEvent>> watchers;
        lock (_gate)
        {
            _finished = true;
            watchers = [.. _watchers];
            _watchers.Clear();
        }

        foreach (var watcher in watchers)
        {
            watcher.Writer.TryComplete();
        }

        _manager.Forget(this);
    }

    private static string Describe(JobResources used) => string.Create(CultureInfo.InvariantCulture,
        $"used: {(used.CpuMilliseconds is { } cpu ? $"{cpu:0.#} ms of CPU{(used.GridCpuMilliseconds is { } grid ? $" ({grid:0.#} ms of it on the grid's silos)" : "")}" : "CPU time unknown here")}{(used.Cores is { } cores ? $" on {cores} core{(cores == 1 ? "" : "s")}" : "")}, {used.AllocatedBytes / 1048576.0:0.#} MiB allocated; the process peaked at {used.PeakMemoryBytes / 1048576.0:0.#} MiB with {used.ProcessJobs} job{(used.ProcessJobs == 1 ? "" : "s")} running");

    private void Update(Func<JobRecord, JobRecord> change, bool persist, bool broadcast = true)
    {
        JobRecord next;
        lock (_gate)
        {
            next = _record = change(_record);
        }

        if (persist)
        {
            try
            {
                _manager.Store.UpdateJobAsync(next).GetAwaiter().GetResult();
            }
#pragma warning disable CA1031 // A store hiccup must not kill the job; the final update retries below.
            catch (Exception exception)
#pragma warning restore CA1031
            {
                JobLogMessages.PersistFailed(_manager.Logger, Id, exception);
                if (next.State is not (JobState.Queued or JobState.Running))
                {
                    _manager.Store.UpdateJobAsync(next).GetAwaiter().GetResult();
                }
            }
        }

        if (broadcast)
        {
            Broadcast(new JobEvent.Status(next));
        }
    }

    private void Broadcast(JobEvent item)
    {
        lock (_gate)
        {
            foreach (var watcher in _watchers)
            {
                watcher.Writer.TryWrite(item);
            }
        }
    }
}

internal interface ICancellableJob
{
    void Cancel();
}

internal static partial class JobLogMessages
{
    [LoggerMessage(Level = LogLevel.Error, Message = "Job {JobId} failed")]
    public static partial void JobFailed(ILogger logger, Guid jobId, Exception exception);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Could not persist job {JobId}")]
    public static partial void PersistFailed(ILogger logger, Guid jobId, Exception exception);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Marked {Count} jobs of {Service} interrupted: the service had stopped while they were queued or running")]
    public static partial void MarkedInterrupted(ILogger logger, int count, string service);

    [LoggerMessage(Level = LogLevel.Information, Message = "Job {JobId} ({Kind}) accepted")]
    public static partial void Accepted(ILogger logger, Guid jobId, string kind);
}

/// <summary>
/// How job parameters, progress and results are written as JSON (web defaults: camelCase); a result
/// that is a protobuf message is kept as its canonical JSON, the same text REST returns.
/// </summary>
public static class JobJson
{
    public static readonly JsonSerializerOptions Options = new(JsonSerializerDefaults.Web) { Converters = { new Rpc.ProtoJson() } };
}
