using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;
using System.Text.Json;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Salsa.Hosting.Compute;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Scheduling;
using Salsa.Hosting.Security;
using Salsa.Store;

namespace Salsa.Hosting.Jobs;

// Design: jobs accepted by this service process. Accepting = a place in the tenant-fair scheduler
// (refused when the tenant's share or the whole queue is full: QueueFullException → 429 /
// RESOURCE_EXHAUSTED), then the record in the store; a slot, given to tenants in turn, puts it on
// ComputeRuntime's jobs dispatcher; the job starts only once stored, so a job that runs is always a
// job that can be found. Live jobs are in `_live` until they finish; finished ones are read from the store. At start
// every Queued/Running record of this service is marked Interrupted (it belonged to a process that
// stopped); at stop, running jobs are cancelled and recorded as Interrupted — none vanish.
public sealed class JobManager(IDataStore store, ComputeRuntime runtime, ServiceIdentity identity, IMeterFactory meterFactory, ILogger<JobManager> logger) : IHostedService
{
    internal const string StoppedReason = "The service stopped while the job was queued or running.";

    private readonly ConcurrentDictionary<Guid, LiveJob> _live = new();
    private TenantScheduler<LiveJob>? _scheduler;

    // Jobs start a tenant at a time, in turn, each into the jobs dispatcher once a slot is its.
    private TenantScheduler<LiveJob> Scheduler => LazyInitializer.EnsureInitialized(ref _scheduler, () => new TenantScheduler<LiveJob>(
        new TenantShares(Runtime.Limits.ConcurrentJobs, Runtime.Limits.JobQueueDepth, Runtime.Limits.MaxQueuedJobsPerTenant, Runtime.Limits.MaxRunningJobsPerTenant ?? Runtime.Limits.ConcurrentJobs - 1, Runtime.Limits.SpareJobSlots),
        Dispatch));

    internal IDataStore Store { get; } = store;

    internal ComputeRuntime Runtime { get; } = runtime;

    internal ILogger Logger { get; } = logger;

    internal HostingMetrics Metrics { get; } = new(meterFactory);

    /// <summary>What this service's recent jobs logged.</summary>
    public JobLogs Logs { get; } = new();

    internal bool Stopping { get; private set; }

    public string Service => identity.Name;

    public async Task StartAsync(CancellationToken cancellationToken)
    {
        var count = await Store.MarkInterruptedAsync(Service, StoppedReason, cancellationToken).ConfigureAwait(false);
        if (count > 0)
        {
            JobLogMessages.MarkedInterrupted(Logger, count, Service);
        }
    }

    public Task StopAsync(CancellationToken cancellationToken)
    {
        Stopping = true;
        foreach (var job in _live.Values)
        {
            job.Cancel();
        }

        return Task.CompletedTask;
    }

    /// <summary>Accepts a job or refuses it (queue full). Returns the stored record.</summary>
    public async Task<JobRecord> SubmitAsync(string kind, object parameters, Guid? datasetId, JobWork work, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(parameters);
        ArgumentNullException.ThrowIfNull(work);
        if (Stopping)
        {
            throw new QueueFullException("The service is stopping.", Runtime.Limits.RetryAfter);
        }

        var record = new JobRecord
        {
            Id = Guid.NewGuid(),
            Service = Service,
            Kind = kind,
            State = JobState.Queued,
            Created = DateTimeOffset.UtcNow,
            DatasetId = datasetId,
            Tenant = CallerTenant.Current,
            ParametersJson = JsonSerializer.Serialize(parameters, parameters.GetType(), JobJson.Options),
        };
        var live = new LiveJob(record, work, this);
        _live[record.Id] = live;
        if (Scheduler.TryEnqueue(record.Tenant, live) is var refusal and not SchedulerRefusal.None)
        {
            _live.TryRemove(record.Id, out _);
            Metrics.JobsRejected.Add(1);
            var reason = Scheduler.Describe(refusal, $"{Service} jobs", $"{ServiceLimits.Section}:{nameof(ServiceLimits.MaxQueuedJobsPerTenant)}", $"{ServiceLimits.Section}:{nameof(ServiceLimits.JobQueueDepth)}");
            throw new QueueFullException($"{reason} Retry after {Runtime.Limits.RetryAfter.TotalSeconds:0.#} s.", Runtime.Limits.RetryAfter);
        }

        try
        {
            await Store.InsertJobAsync(record, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception exception)
        {
            _live.TryRemove(record.Id, out _);
            live.Stored.TrySetException(exception);
            throw;
        }

        // Opened once the job is accepted: a caller refused again and again lets go of no one's log.
        live.Log = Logs.Open(record.Id);
        live.Log.Append(LogLevel.Information, "job", $"accepted: {kind}");
        live.Stored.TrySetResult();
        Metrics.JobsStarted.Add(1);
        JobLogMessages.Accepted(Logger, record.Id, kind);
        return record;
    }

    /// <summary>This service's job of the calling tenant, live or stored; null when unknown, another service's or another tenant's.</summary>
    public async Task<JobRecord?> GetAsync(Guid id, CancellationToken cancellationToken = default)
    {
        var tenant = CallerTenant.Current;
        if (_live.TryGetValue(id, out var live))
        {
            return live.Record.Tenant == tenant ? live.Record : null;
        }

        var stored = await Store.GetJobAsync(id, cancellationToken).ConfigureAwait(false);
        return stored is not null && stored.Service == Service && stored.Tenant == tenant ? stored : null;
    }

    public async Task<JobRecord> GetRequiredAsync(Guid id, CancellationToken cancellationToken = default) =>
        await GetAsync(id, cancellationToken).ConfigureAwait(false) ?? throw new NotFoundException($"No job {id} on the {Service} service.");

    /// <summary>A file the caller's job <paramref name="id"/> of this service stored; a clear 404 when the job or the file is unknown.</summary>
    public async Task<Artifact> GetArtifactAsync(Guid id, string name, CancellationToken cancellationToken = default)
    {
        var job = await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false);
        return await Store.GetArtifactAsync(job.Id, name, cancellationToken).ConfigureAwait(false)
            ?? throw new NotFoundException($"Job {job.Id} has no artifact '{name}'.");
    }

    /// <summary>What the caller's job <paramref name="id"/> logged (see <see cref="JobLogs"/>).</summary>
    public async Task<JobLog> GetLogAsync(Guid id, CancellationToken cancellationToken = default)
    {
        var job = await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false); // the caller's, or a 404
        return Logs.Get(job.Id) ?? throw new NotFoundException(
            $"The {Service} service holds no log of job {id}: it keeps the logs of its last {JobLogs.MaxJobs:N0} jobs in memory, and the job ran before the service last started or fell out of them.");
    }

    /// <summary>The result summary of a succeeded job, or a clear error for any other state.</summary>
    public async Task<(JobRecord Job, string ResultJson)> GetResultAsync(Guid id, CancellationToken cancellationToken = default)
    {
        var job = await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false);
        return job.State switch
        {
            JobState.Succeeded => (job, job.ResultJson ?? "{}"),
            JobState.Queued or JobState.Running => throw new ConflictException($"Job {id} is {job.State.ToString().ToLowerInvariant()}; its result is not ready."),
            _ => throw new ConflictException($"Job {id} ended {job.State.ToString().ToLowerInvariant()}: {job.Error}"),
        };
    }

    /// <summary>The typed result summary of a succeeded job.</summary>
    public async Task<(JobRecord Job, T Result)> GetResultAsync<T>(Guid id, CancellationToken cancellationToken = default)
    {
        var (job, json) = await GetResultAsync(id, cancellationToken).ConfigureAwait(false);
        try
        {
            return (job, JsonSerializer.Deserialize<T>(json, JobJson.Options) ?? throw new InvalidDataException($"Job {id} has an empty result."));
        }
        catch (JsonException)
        {
            // A result an earlier version stored in another shape: the job's record still shows it.
            throw new ConflictException($"Job {id}'s result was stored by an earlier version in another shape; GET /api/jobs/{id} shows it as stored.");
        }
    }

    public async Task<JobRecord> CancelAsync(Guid id, CancellationToken cancellationToken = default)
    {
        var job = await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false); // the caller's, or a 404
        if (_live.TryGetValue(id, out var live))
        {
            live.Cancel();
            if (Scheduler.TryRemove(live.Record.Tenant, live))
            {
                // Still waiting: it ends now (as cancelled), holding no slot and not waiting for one.
                _ = Task.Run(live.Execute, CancellationToken.None);
            }

            return live.Record;
        }

        return job;
    }

    public async Task<IReadOnlyList<JobRecord>> ListAsync(int limit, CancellationToken cancellationToken = default)
    {
        var stored = await Store.ListJobsAsync(Service, CallerTenant.Current, Math.Clamp(limit, 1, 1000), cancellationToken).ConfigureAwait(false);
        return [.. stored.Select(j => _live.TryGetValue(j.Id, out var live) ? live.Record : j)];
    }

    /// <summary>The job's events until it ends: its state now, progress, and its final state.</summary>
    public async IAsyncEnumerable<JobEvent> WatchAsync(Guid id, [EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        var job = await GetRequiredAsync(id, cancellationToken).ConfigureAwait(false); // the caller's, or a 404
        if (!_live.TryGetValue(id, out var live))
        {
            yield return new JobEvent.Status(job);
            yield break;
        }

        var reader = live.Watch();
        var ended = false;
        try
        {
            await foreach (var item in reader.ReadAllAsync(cancellationToken).ConfigureAwait(false))
            {
                ended = item is JobEvent.Status { Job.State: not (JobState.Queued or JobState.Running) };
                yield return item;
            }
        }
        finally
        {
            live.Unwatch(reader);
        }

        // A watcher that attached just as the job ended may have missed the final state.
        if (!ended && await GetAsync(id, CancellationToken.None).ConfigureAwait(false) is { State: not (JobState.Queued or JobState.Running) } final)
        {
            yield return new JobEvent.Status(final);
        }
    }

    internal void Forget(LiveJob job) => _live.TryRemove(job.Id, out _);

    // A slot is the job's: it runs on the jobs dispatcher (whose queue holds at most the slots' jobs).
    private void Dispatch(LiveJob job)
    {
        job.HoldsSlot = true;
        if (!Runtime.JobQueue.TryEnqueue(job))
        {
            throw new InvalidOperationException("The jobs dispatcher refused a job it had a slot for.");
        }
    }

    /// <summary>A job that held a slot has ended: the slot goes to the next tenant in turn.</summary>
    internal void Completed(LiveJob job) => Scheduler.Completed(job.Record.Tenant);
}
