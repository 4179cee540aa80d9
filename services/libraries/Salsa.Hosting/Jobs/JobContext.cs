using System.Threading.Channels;
using Salsa.Ccr;
using Salsa.Hosting.Compute;
using Salsa.Store;

namespace Salsa.Hosting.Jobs;

/// <summary>What a running job's work gets: cancellation, progress, artifacts, the store and the cores.</summary>
public sealed class JobContext
{
    private readonly LiveJob _job;
    private readonly List<(Action Complete, Task Pump)> _progress = [];
    private readonly CoreBudget _cores;
    private readonly int _wantedRanks;
    private readonly IDisposable _running;
    private CoreLease? _lease;

    internal JobContext(LiveJob job, IDataStore store, Dispatcher compute, CoreBudget cores, int ranks, CancellationToken cancellationToken)
    {
        _job = job;
        Store = store;
        Compute = compute;
        _cores = cores;
        _running = cores.Enter();
        _wantedRanks = ranks;
        CancellationToken = cancellationToken;
    }

    public Guid JobId => _job.Id;

    public IDataStore Store { get; }

    /// <summary>The dispatcher for the job's SPMD ranks.</summary>
    public Dispatcher Compute { get; }

    /// <summary>
    /// The job's SPMD ranks: taken from the process's <see cref="CoreBudget"/> when first asked for
    /// (as the compute starts, after the job has read its input) — up to the service's ranks, its share
    /// of the cores among the running jobs and no more than are free, at least one — and held until the
    /// job ends.
    /// </summary>
    public int Ranks => (_lease ??= _cores.Take(_wantedRanks)).Ranks;

    /// <summary>The ranks the job took, if it took any.</summary>
    internal int? RanksTaken => _lease?.Ranks;

    /// <summary>Measures what the job's work uses (set while it computes).</summary>
    internal JobMeter? Meter { get; set; }

    /// <summary>
    /// CPU time the job's passes used on the grid's silos, outside this process's flows: counted in
    /// the job's resources (its CPU time, and its grid CPU time) beside what its own flows used here.
    /// </summary>
    public void AddGridCpu(TimeSpan cpu) => Meter?.AddGridCpu(cpu);

    /// <summary>Gives the job's ranks back and leaves the running jobs (the job has ended).</summary>
    internal void ReturnCores()
    {
        _lease?.Dispose();
        _running.Dispose();
    }

    /// <summary>Cancelled when the job is cancelled or the service stops.</summary>
    public CancellationToken CancellationToken { get; }

    public void Report(JobProgressUpdate update) => _job.Report(update);

    /// <summary>
    /// A channel whose items are mapped to progress events as they are written — for algorithms
    /// that report through a <see cref="ChannelWriter{T}"/>. Every event written before the work
    /// returns reaches watchers before the job's final status.
    /// </summary>
    public ChannelWriter<T> ProgressWriter<T>(Func<T, JobProgressUpdate> map)
    {
        ArgumentNullException.ThrowIfNull(map);
        var channel = Channel.CreateUnbounded<T>(new UnboundedChannelOptions { SingleReader = true, SingleWriter = false });
        var pump = Task.Run(async () =>
        {
            await foreach (var item in channel.Reader.ReadAllAsync(CancellationToken.None).ConfigureAwait(false))
            {
                Report(map(item));
            }
        });
        lock (_progress)
        {
            _progress.Add((() => channel.Writer.TryComplete(), pump));
        }

        return channel.Writer;
    }

    /// <summary>Closes the progress writers and waits until their events are delivered.</summary>
    internal void EndProgress()
    {
        List<Task> pumps;
        lock (_progress)
        {
            foreach (var (complete, _) in _progress)
            {
                complete();
            }

            pumps = [.. _progress.Select(p => p.Pump)];
            _progress.Clear();
        }

        Task.WaitAll(pumps);
    }

    public Task SaveArtifactAsync(string name, string contentType, byte[] data) =>
        Store.PutArtifactAsync(JobId, new Artifact(name, contentType, data), CancellationToken);
}
