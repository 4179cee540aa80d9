using System.Diagnostics;
using System.Threading.Channels;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Salsa.Clustering;
using Salsa.Clustering.Annealing;

namespace Salsa.Cluster.Annealing;

/// <summary>
/// The coordinator of one deterministic-annealing job (keyed by the job's id): it drives the
/// annealing loop, sending every pass to the dataset's partitions and folding their sums in
/// partition order. The loop runs on a thread of its own, never in a grain turn; its checkpoints are
/// grain state, and a reminder brings the job back on a surviving silo if this one is lost.
/// </summary>
public interface IAnnealingJobGrain : IGrainWithGuidKey
{
    /// <summary>
    /// Starts the job; starting it again with the same spec returns it as it is (no second run).
    /// <paramref name="traceParent"/> (W3C) puts the job's spans in the caller's trace.
    /// </summary>
    Task<AnnealingJobView> StartAsync(AnnealingJobSpec spec, string? traceParent = null);

    Task<AnnealingJobView> GetAsync();

    /// <summary>The result as JSON (<see cref="AnnealingResult"/>), once the job succeeded.</summary>
    Task<string?> ResultAsync();

    Task<AnnealingJobView> CancelAsync();

    /// <summary>From the job's own loop: a checkpoint to keep (JSON), with this activation's pass statistics so far.</summary>
    Task CheckpointAsync(string checkpoint, PassStatistics passes, string[] silos);

    /// <summary>From the job's own loop: how it ended.</summary>
    Task CompleteAsync(string? result, string? failure, PassStatistics passes, string[] silos);
}

public sealed partial class AnnealingJobGrain(
    [PersistentState("annealing-job")] IPersistentState<AnnealingJobState> state,
    IOptions<ClusterJobOptions> options,
    ILogger<AnnealingJobGrain> logger) : Grain, IAnnealingJobGrain, IRemindable, IDisposable
{
    private const string ResumeReminder = "resume";
    private readonly Channel<ClusteringProgress> _progress = Channel.CreateUnbounded<ClusteringProgress>(new() { SingleReader = true });
    private ClusteringProgress? _latest;
    private CancellationTokenSource? _stop;
    private volatile GrainPartitions? _partitions;
    private PassStatistics _earlier = PassStatistics.None;
    private Guid _id;

    private AnnealingJobState State => state.State;

    public override Task OnActivateAsync(CancellationToken cancellationToken)
    {
        _id = this.GetPrimaryKey();
        if (State.Status == JobStatuses.Running)
        {
            // A job that was running when its coordinator was lost: continue from its last checkpoint.
            State.Resumes++;
            LogResuming(logger, _id, State.Checkpoints);
            StartLoop();
        }

        return Task.CompletedTask;
    }

    public override async Task OnDeactivateAsync(DeactivationReason reason, CancellationToken cancellationToken)
    {
        if (_stop is { } stop)
        {
            await stop.CancelAsync();
        }
    }

    public async Task<AnnealingJobView> StartAsync(AnnealingJobSpec spec, string? traceParent = null)
    {
        ArgumentNullException.ThrowIfNull(spec);
        if (State.Spec is { } existing)
        {
            return existing == spec ? View() : throw new ArgumentException($"Job {_id} was started with another spec.", nameof(spec));
        }

        spec.ToOptions().Validate(Math.Max(spec.Partitions, spec.MaxClusters));
        if (spec.Partitions < 1)
        {
            throw new ArgumentException("A job needs at least one partition.", nameof(spec));
        }

        (State.Spec, State.Status, State.TraceParent) = (spec, JobStatuses.Running, traceParent);
        await state.WriteStateAsync();
        await this.RegisterOrUpdateReminder(ResumeReminder, options.Value.ResumeCheck, options.Value.ResumeCheck);
        StartLoop();
        return View();
    }

    public void Dispose() => _stop?.Dispose();

    public Task<AnnealingJobView> GetAsync() => Task.FromResult(View());

    public Task<string?> ResultAsync() => Task.FromResult(State.Result);

    public async Task<AnnealingJobView> CancelAsync()
    {
        if (State.Status == JobStatuses.Running)
        {
            if (_stop is { } stop)
            {
                await stop.CancelAsync();
            }

            await FinishAsync(JobStatuses.Cancelled, null, "The job was cancelled.");
        }

        return View();
    }

    public async Task CheckpointAsync(string checkpoint, PassStatistics passes, string[] silos)
    {
        if (State.Status != JobStatuses.Running)
        {
            return;
        }

        State.Checkpoint = checkpoint;
        State.Checkpoints++;
        State.Passes = _earlier.Add(passes);
        State.Silos = [.. State.Silos.Union(silos).Order(StringComparer.Ordinal)];
        await state.WriteStateAsync();
    }

    public async Task CompleteAsync(string? result, string? failure, PassStatistics passes, string[] silos)
    {
        if (State.Status != JobStatuses.Running)
        {
            return;
        }

        State.Passes = _earlier.Add(passes);
        State.Silos = [.. State.Silos.Union(silos).Order(StringComparer.Ordinal)];
        await FinishAsync(failure is null ? JobStatuses.Succeeded : JobStatuses.Failed, result, failure);
    }

    public Task ReceiveReminder(string reminderName, TickStatus status)
    {
        // Activating the grain resumed a running job (OnActivateAsync); a finished one needs no reminder.
        return State.Status == JobStatuses.Running ? Task.CompletedTask : UnregisterAsync();
    }

    private async Task FinishAsync(string status, string? result, string? error)
    {
        (State.Status, State.Result, State.Error, State.Checkpoint) = (status, result, error, null);
        await state.WriteStateAsync();
        await UnregisterAsync();
    }

    private async Task UnregisterAsync()
    {
        if (await this.GetReminder(ResumeReminder) is { } reminder)
        {
            await this.UnregisterReminder(reminder);
        }
    }

    private AnnealingJobView View()
    {
        while (_progress.Reader.TryRead(out var progress))
        {
            _latest = progress;
        }

        var live = _partitions;
        return new AnnealingJobView
        {
            Status = State.Status,
            Phase = _latest?.Phase,
            Iterations = _latest?.Iteration ?? 0,
            Temperature = _latest?.Temperature ?? 0,
            Clusters = _latest?.Clusters ?? 0,
            Objective = _latest?.Objective ?? 0,
            Elapsed = _latest?.Elapsed ?? TimeSpan.Zero,
            Partitions = State.Spec?.Partitions ?? 0,
            Silos = live is null ? State.Silos : [.. State.Silos.Union(live.Silos).Order(StringComparer.Ordinal)],
            Coordinator = RuntimeIdentity,
            Resumes = State.Resumes,
            Checkpoints = State.Checkpoints,
            Passes = live is null ? State.Passes : _earlier.Add(live.Statistics),
            Error = State.Error,
        };
    }

    private void StartLoop()
    {
        var spec = State.Spec!;
        var resumeFrom = State.Checkpoint is { } json ? StateJson.Read<AnnealingCheckpoint>(json) : null;
        ActivityContext.TryParse(State.TraceParent, null, out var parent);
        var self = this.AsReference<IAnnealingJobGrain>();
        var grains = GrainFactory;
        var settings = options.Value;
        var stop = _stop = new CancellationTokenSource();
        _earlier = State.Passes; // passes of earlier activations (up to their last checkpoint)
        var (id, resumes, silo) = (_id, State.Resumes, RuntimeIdentity);
        // Not awaited: the loop records its own outcome (CompleteAsync) and stops with the activation (_stop).
        _ = Task.Factory.StartNew(() =>
        {
            using var span = ClusterTelemetry.Source.StartActivity("annealing job", ActivityKind.Internal, parent);
            span?.SetTag("salsa.job.id", id.ToString());
            span?.SetTag("salsa.cluster.partitions", spec.Partitions);
            span?.SetTag("salsa.cluster.coordinator", silo);
            span?.SetTag("salsa.cluster.resumes", resumes);
            span?.SetTag("salsa.cluster.resumed_from_checkpoint", resumeFrom is not null);
            RunLoop(spec, resumeFrom, self, grains, settings, stop.Token);
        }, stop.Token, TaskCreationOptions.LongRunning, TaskScheduler.Default);
    }

    // On the job's own thread: waits on partitions and on its own grain's turns, never inside one.
    private void RunLoop(AnnealingJobSpec spec, AnnealingCheckpoint? resumeFrom, IAnnealingJobGrain self, IGrainFactory grains, ClusterJobOptions settings, CancellationToken stop)
    {
        GrainPartitions? partitions = null;
        PassStatistics Passes() => partitions?.Statistics ?? PassStatistics.None;

        try
        {
            partitions = _partitions = GrainPartitions.Open(grains, spec.DatasetId, spec.Partitions, settings.PartitionRetry, stop);
            var lastSave = Stopwatch.StartNew();
            var stretch = (Started: DateTimeOffset.UtcNow, Passes: PassStatistics.None);
            void Checkpoint(AnnealingCheckpoint checkpoint)
            {
                if (lastSave.Elapsed >= settings.CheckpointInterval)
                {
                    stretch = RecordStretch(stretch, partitions.Statistics, checkpoint);
                    self.CheckpointAsync(StateJson.Write(checkpoint), Passes(), partitions.Silos).WaitAsync(stop).GetAwaiter().GetResult();
                    lastSave.Restart();
                }
            }

            var result = DeterministicAnnealing.Run(partitions, spec.ToOptions(), _progress.Writer, resumeFrom, Checkpoint, stop);
            RecordStretch(stretch, partitions.Statistics, null);
            Activity.Current?.SetTag("salsa.cluster.silos", string.Join(' ', partitions.Silos));
            self.CompleteAsync(StateJson.Write(result), null, Passes(), partitions.Silos).WaitAsync(stop).GetAwaiter().GetResult();
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
            // Cancelled, or this activation is going away; the state says which.
        }
#pragma warning disable CA1031 // A job's failure is its outcome, recorded in its state.
        catch (Exception exception)
#pragma warning restore CA1031
        {
            LogFailed(logger, exception, _id);
            self.CompleteAsync(null, exception.Message, Passes(), partitions?.Silos ?? []).GetAwaiter().GetResult();
        }
    }

    /// <summary>
    /// A span for the passes since the last one (started then, ended now): how many, and their wait
    /// split into the busiest silo's compute and messaging — the fan-out as a trace viewer shows it.
    /// </summary>
    private static (DateTimeOffset Started, PassStatistics Passes) RecordStretch((DateTimeOffset Started, PassStatistics Passes) since, PassStatistics now, AnnealingCheckpoint? at)
    {
        var passes = now.Passes - since.Passes.Passes;
        using var span = ClusterTelemetry.Source.StartActivity("annealing passes", ActivityKind.Internal, Activity.Current?.Context ?? default, startTime: since.Started);
        span?.SetTag("salsa.cluster.passes", passes);
        span?.SetTag("salsa.cluster.compute_us", now.ComputeMicroseconds - since.Passes.ComputeMicroseconds);
        span?.SetTag("salsa.cluster.messaging_us", now.MessagingMicroseconds - since.Passes.MessagingMicroseconds);
        span?.SetTag("salsa.cluster.messaging_us_per_pass", passes == 0 ? 0 : (now.MessagingMicroseconds - since.Passes.MessagingMicroseconds) / passes);
        span?.SetTag("salsa.cluster.retries", now.Retries - since.Passes.Retries);
        if (at is not null)
        {
            span?.SetTag("salsa.annealing.temperature", at.Temperature);
            span?.SetTag("salsa.annealing.clusters", at.Clusters);
        }

        return (DateTimeOffset.UtcNow, now);
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Annealing job {JobId} resumes from checkpoint {Checkpoint}.")]
    private static partial void LogResuming(ILogger logger, Guid jobId, int checkpoint);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Annealing job {JobId} failed.")]
    private static partial void LogFailed(ILogger logger, Exception exception, Guid jobId);
}

/// <summary>How the cluster's jobs keep going through failures.</summary>
public sealed record ClusterJobOptions
{
    /// <summary>How often a running job's state is written (at most once per temperature).</summary>
    public TimeSpan CheckpointInterval { get; set; } = TimeSpan.FromSeconds(2);

    /// <summary>The period of the reminder that brings a job back if its coordinator's silo is lost.</summary>
    public TimeSpan ResumeCheck { get; set; } = TimeSpan.FromMinutes(1);

    /// <summary>How long a partition is asked again while the cluster replaces a lost silo.</summary>
    public TimeSpan PartitionRetry { get; set; } = TimeSpan.FromMinutes(2);
}
