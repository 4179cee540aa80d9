using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading.Channels;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Salsa.Clustering;
using Salsa.Grid.Compute;
using Salsa.Grid.Partitions;
using Salsa.Store;

namespace Salsa.Grid.Jobs;

/// <summary>
/// A coordinator: it drives an algorithm's loop over the dataset's partition grain grid, sending
/// every pass to the partitions and folding their results in partition order. The loop runs on a
/// thread of its own, never in a grain turn; its checkpoints are grain state, and a reminder brings
/// the job back on a surviving silo — from its last checkpoint — if this one is lost.
/// </summary>
/// <typeparam name="TSpec">What the job runs: its dataset, partition grid and the algorithm's options.</typeparam>
/// <typeparam name="TCheckpoint">The algorithm's whole state at a point it can resume from.</typeparam>
public abstract partial class GridJobGrain<TSpec, TCheckpoint>(
    IPersistentState<GridJobState<TSpec>> state,
    IOptions<GridJobOptions> options,
    ILogger logger) : Grain, IGridJobGrain, IRemindable, IDisposable
    where TSpec : class, IGridJobSpec
    where TCheckpoint : class
{
    private const string ResumeReminder = "resume";
    private readonly Channel<ClusteringProgress> _progress = Channel.CreateUnbounded<ClusteringProgress>();
    private TaskCompletionSource _changed = NewChange();
    private ClusteringProgress? _latest;
    private CancellationTokenSource? _stop;
    private volatile GrainPartitions? _partitions;
    private PassStatistics _earlier = PassStatistics.None;
    private Guid _id;

    /// <summary>The algorithm's name in spans and logs, e.g. <c>annealing</c>.</summary>
    protected abstract string Algorithm { get; }

    private GridJobState<TSpec> State => state.State;

    public override Task OnActivateAsync(CancellationToken cancellationToken)
    {
        _id = this.GetPrimaryKey();
        if (State.Status == JobState.Running)
        {
            // A job that was running when its coordinator was lost: continue from its last checkpoint.
            State.Resumes++;
            LogResuming(logger, Algorithm, _id, State.Checkpoints);
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

    public void Dispose()
    {
        _stop?.Dispose();
        GC.SuppressFinalize(this);
    }

    public Task<GridJobView> GetAsync() => Task.FromResult(View());

    public async IAsyncEnumerable<GridJobView> WatchAsync([EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        // Runs in this grain's turns, interleaved with its other calls (Orleans' enumeration calls
        // are always-interleave), so the job's loop reports and checkpoints while a caller waits here.
        // A change of status, checkpoint or silos is sent at once; progress at most every
        // WatchInterval: a pass takes a fraction of a millisecond on a small dataset, and a view
        // per pass to every watcher would take the cores the passes compute on.
        var interval = options.Value.WatchInterval;
        while (true)
        {
            var changed = _changed.Task;
            var view = View();
            var sent = Stopwatch.GetTimestamp();
            yield return view;
            if (view.IsFinished)
            {
                yield break;
            }

            var first = await Task.WhenAny(changed, _progress.Reader.WaitToReadAsync(cancellationToken).AsTask()).WaitAsync(cancellationToken);
            var rest = interval - Stopwatch.GetElapsedTime(sent);
            if (first != changed && rest > TimeSpan.Zero)
            {
                await Task.WhenAny(changed, Task.Delay(rest, cancellationToken)).WaitAsync(cancellationToken);
            }
        }
    }

    public Task<ResultPart?> ResultPartAsync(int index) => Task.FromResult(State.Result is { } result ? ResultPart.Of(result, index) : null);

    public async Task<GridJobView> CancelAsync()
    {
        if (State.Status == JobState.Running)
        {
            if (_stop is { } stop)
            {
                await stop.CancelAsync();
            }

            await FinishAsync(JobState.Cancelled, null, "The job was cancelled.");
        }

        return View();
    }

    public async Task CheckpointAsync(string checkpoint, PassStatistics passes, string[] silos)
    {
        if (State.Status != JobState.Running)
        {
            return;
        }

        State.Checkpoint = checkpoint;
        State.Checkpoints++;
        State.Passes = _earlier.Add(passes);
        MoveTo(silos);
        await state.WriteStateAsync();
        Change();
    }

    public async Task CompleteAsync(string? result, string? failure, PassStatistics passes, string[] silos)
    {
        if (State.Status != JobState.Running)
        {
            return;
        }

        State.Passes = _earlier.Add(passes);
        MoveTo(silos);
        await FinishAsync(failure is null ? JobState.Succeeded : JobState.Failed, result, failure);
    }

    // The job computes on `silos` now; the silos it used before and does not now are former ones.
    private void MoveTo(string[] silos)
    {
        State.FormerSilos = Former(State.FormerSilos.Union(State.Silos), silos);
        State.Silos = [.. silos.Order(StringComparer.Ordinal)];
    }

    private static string[] Former(IEnumerable<string> used, IEnumerable<string> now) => [.. used.Except(now, StringComparer.Ordinal).Order(StringComparer.Ordinal)];

    public Task ReceiveReminder(string reminderName, TickStatus status)
    {
        // Activating the grain resumed a running job (OnActivateAsync); a finished one needs no reminder.
        return State.Status == JobState.Running ? Task.CompletedTask : UnregisterAsync();
    }

    /// <summary>
    /// Starts the job; starting it again with the same spec returns it as it is (no second run).
    /// <paramref name="traceParent"/> (W3C) puts the job's spans in the caller's trace.
    /// </summary>
    protected async Task<GridJobView> StartJobAsync(TSpec spec, string? traceParent)
    {
        ArgumentNullException.ThrowIfNull(spec);
        if (State.Spec is { } existing)
        {
            return existing.Equals(spec) ? View() : throw new ArgumentException($"Job {_id} was started with another spec.", nameof(spec));
        }

        if (spec.Partitions < 1)
        {
            throw new ArgumentException("A job needs at least one partition.", nameof(spec));
        }

        spec.Validate();
        (State.Spec, State.Status, State.TraceParent) = (spec, JobState.Running, traceParent);
        await state.WriteStateAsync();
        await this.RegisterOrUpdateReminder(ResumeReminder, options.Value.ResumeCheck, options.Value.ResumeCheck);
        StartLoop();
        return View();
    }

    /// <summary>
    /// Runs the algorithm over <paramref name="partitions"/> (from <paramref name="resumeFrom"/> when
    /// given), offering its state to <paramref name="checkpoint"/> as it goes; returns the result as JSON.
    /// </summary>
    protected abstract string Run(TSpec spec, GrainPartitions partitions, TCheckpoint? resumeFrom, Action<TCheckpoint> checkpoint, ChannelWriter<ClusteringProgress> progress, CancellationToken cancellationToken);

    /// <summary>Tags a span of passes with where the algorithm stood at <paramref name="checkpoint"/>.</summary>
    protected virtual void Describe(Activity span, TCheckpoint checkpoint)
    {
    }

    private async Task FinishAsync(JobState status, string? result, string? error)
    {
        (State.Status, State.Result, State.Error, State.Checkpoint) = (status, result, error, null);
        await state.WriteStateAsync();
        Change();
        await UnregisterAsync();
    }

    private static TaskCompletionSource NewChange() => new(TaskCreationOptions.RunContinuationsAsynchronously);

    // Wakes the watchers. Called in a grain turn, as they run: one thread at a time, so no atomics.
    private void Change()
    {
        var changed = _changed;
        _changed = NewChange();
        changed.TrySetResult();
    }

    private async Task UnregisterAsync()
    {
        if (await this.GetReminder(ResumeReminder) is { } reminder)
        {
            await this.UnregisterReminder(reminder);
        }
    }

    private GridJobView View()
    {
        while (_progress.Reader.TryRead(out var progress))
        {
            _latest = progress;
        }

        var live = _partitions;
        return new GridJobView
        {
            Algorithm = Algorithm,
            Status = State.Status,
            Phase = _latest?.Phase,
            Iterations = _latest?.Iteration ?? 0,
            Temperature = _latest?.Temperature,
            Clusters = _latest?.Clusters ?? 0,
            Objective = _latest?.Objective ?? 0,
            Elapsed = _latest?.Elapsed ?? TimeSpan.Zero,
            Partitions = State.Spec?.Partitions ?? 0,
            Silos = live is null ? State.Silos : live.Silos,
            FormerSilos = live is null ? State.FormerSilos : Former(State.FormerSilos.Union(State.Silos).Union(live.FormerSilos), live.Silos),
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
        var resumeFrom = State.Checkpoint is { } json ? StateJson.Read<TCheckpoint>(json) : null;
        ActivityContext.TryParse(State.TraceParent, null, out var parent);
        var self = this.AsReference<IGridJobGrain>();
        var grains = GrainFactory;
        var settings = options.Value;
        var stop = _stop = new CancellationTokenSource();
        _earlier = State.Passes; // passes of earlier activations (up to their last checkpoint)
        var (id, resumes, silo) = (_id, State.Resumes, RuntimeIdentity);
        // The partitions this silo holds are computed in place by the job's loop (no grain call).
        var local = ServiceProvider.GetService<SiloPartitions>() is { } held && ServiceProvider.GetService<SiloCompute>() is { } compute
            ? new LocalSilo(silo, held, compute) : null;
        var members = ServiceProvider.GetService<IClusterMembershipService>();
        // Not awaited: the loop records its own outcome (CompleteAsync) and stops with the activation (_stop).
        _ = Task.Factory.StartNew(() =>
        {
            using var span = GridTelemetry.Source.StartActivity($"{Algorithm} job", ActivityKind.Internal, parent);
            span?.SetTag("salsa.job.id", id.ToString());
            span?.SetTag("salsa.grid.partitions", spec.Partitions);
            span?.SetTag("salsa.grid.coordinator", silo);
            span?.SetTag("salsa.grid.resumes", resumes);
            span?.SetTag("salsa.grid.resumed_from_checkpoint", resumeFrom is not null);
            RunLoop(spec, resumeFrom, self, grains, settings, local, members, stop.Token);
        }, stop.Token, TaskCreationOptions.LongRunning, TaskScheduler.Default);
    }

    // On the job's own thread: waits on partitions and on its own grain's turns, never inside one.
    private void RunLoop(TSpec spec, TCheckpoint? resumeFrom, IGridJobGrain self, IGrainFactory grains, GridJobOptions settings, LocalSilo? local, IClusterMembershipService? members, CancellationToken stop)
    {
        GrainPartitions? partitions = null;
        PassStatistics Passes() => partitions?.Statistics ?? PassStatistics.None;

        try
        {
            partitions = _partitions = GrainPartitions.Open(grains, spec.DatasetId, spec.Partitions, settings.PartitionRetry, stop, local);
            if (members is not null)
            {
                // Silos that join take their share between passes; silos that leave hand theirs over.
                partitions.Elastic(() => [.. members.CurrentSnapshot.Members.Values.Where(m => m.Status == SiloStatus.Active).Select(m => m.SiloAddress.ToString())]);
            }

            var lastSave = Stopwatch.StartNew();
            var stretch = (Started: DateTimeOffset.UtcNow, Passes: PassStatistics.None);
            void Checkpoint(TCheckpoint checkpoint)
            {
                // A span per step the algorithm offers a checkpoint at (an annealing temperature, a
                // Lloyd iteration); its state is kept at most every CheckpointInterval.
                stretch = RecordStretch(stretch, partitions.Statistics, checkpoint);
                if (lastSave.Elapsed >= settings.CheckpointInterval)
                {
                    self.CheckpointAsync(StateJson.Write(checkpoint), Passes(), partitions.Silos).WaitAsync(stop).GetAwaiter().GetResult();
                    lastSave.Restart();
                }
            }

            var result = Run(spec, partitions, resumeFrom, Checkpoint, _progress.Writer, stop);
            RecordStretch(stretch, partitions.Statistics, null);
            Activity.Current?.SetTag("salsa.grid.silos", string.Join(' ', partitions.Silos));
            self.CompleteAsync(result, null, Passes(), partitions.Silos).WaitAsync(stop).GetAwaiter().GetResult();
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
            // Cancelled, or this activation is going away; the state says which.
        }
#pragma warning disable CA1031 // A job's failure is its outcome, recorded in its state.
        catch (Exception exception)
#pragma warning restore CA1031
        {
            LogFailed(logger, exception, Algorithm, _id);
            self.CompleteAsync(null, exception.Message, Passes(), partitions?.Silos ?? []).GetAwaiter().GetResult();
        }
    }

    /// <summary>
    /// A span for the passes since the last one (started then, ended now; one step of the algorithm):
    /// how many, and their wait split into the busiest silo's compute and messaging — the fan-out
    /// as a trace viewer shows it.
    /// </summary>
    private (DateTimeOffset Started, PassStatistics Passes) RecordStretch((DateTimeOffset Started, PassStatistics Passes) since, PassStatistics now, TCheckpoint? at)
    {
        var passes = now.Passes - since.Passes.Passes;
        using var span = GridTelemetry.Source.StartActivity($"{Algorithm} passes", ActivityKind.Internal, Activity.Current?.Context ?? default, startTime: since.Started);
        if (span is not null)
        {
            span.SetTag("salsa.grid.passes", passes);
            span.SetTag("salsa.grid.compute_us", now.ComputeMicroseconds - since.Passes.ComputeMicroseconds);
            span.SetTag("salsa.grid.messaging_us", now.MessagingMicroseconds - since.Passes.MessagingMicroseconds);
            span.SetTag("salsa.grid.messaging_us_per_pass", passes == 0 ? 0 : (now.MessagingMicroseconds - since.Passes.MessagingMicroseconds) / passes);
            span.SetTag("salsa.grid.retries", now.Retries - since.Passes.Retries);
            if (at is not null)
            {
                Describe(span, at);
            }
        }

        return (DateTimeOffset.UtcNow, now);
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "The {Algorithm} job {JobId} resumes from checkpoint {Checkpoint}.")]
    private static partial void LogResuming(ILogger logger, string algorithm, Guid jobId, int checkpoint);

    [LoggerMessage(Level = LogLevel.Warning, Message = "The {Algorithm} job {JobId} failed.")]
    private static partial void LogFailed(ILogger logger, Exception exception, string algorithm, Guid jobId);
}

/// <summary>How the cluster's jobs keep going through failures.</summary>
public sealed record GridJobOptions
{
    /// <summary>How often a running job's state is written (at most once per checkpoint the algorithm offers).</summary>
    public TimeSpan CheckpointInterval { get; set; } = TimeSpan.FromSeconds(2);

    /// <summary>The period of the reminder that brings a job back if its coordinator's silo is lost.</summary>
    public TimeSpan ResumeCheck { get; set; } = TimeSpan.FromMinutes(1);

    /// <summary>The least time between two views a watcher is sent for progress alone (a change of status, checkpoint or silos is sent at once).</summary>
    public TimeSpan WatchInterval { get; set; } = TimeSpan.FromMilliseconds(50);

    /// <summary>How long a partition is asked again while the cluster replaces a lost silo.</summary>
    public TimeSpan PartitionRetry { get; set; } = TimeSpan.FromMinutes(2);
}
