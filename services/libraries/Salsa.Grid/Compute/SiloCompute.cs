using System.Diagnostics;
using Salsa.Ccr;
using Salsa.Clustering.Parallel;

namespace Salsa.Grid.Compute;

/// <summary>
/// A silo's cores for its partitions: one Salsa.Ccr dispatcher with a thread per core, and one
/// partition computing at a time on all of them (a pass's ranks meet at barriers, so two passes
/// sharing the threads could wait on each other). Work runs off the Orleans scheduler, whose grain
/// turns only await it.
/// </summary>
public sealed class SiloCompute : IDisposable
{
    private readonly Dispatcher _dispatcher;
    private readonly SemaphoreSlim _gate = new(1, 1);

    public SiloCompute(int ranks)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(ranks);
        Ranks = ranks;
        _dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = ranks, Name = "Salsa silo" });
    }

    /// <summary>The ranks a partition's pass runs on (this silo's cores).</summary>
    public int Ranks { get; }

    /// <summary>Runs <paramref name="work"/> on the silo's cores once none else does; returns its result and how long it computed (not counting the wait).</summary>
    public async Task<(T Result, TimeSpan Compute)> RunAsync<T>(Func<ParallelismOptions, T> work, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(work);
        await _gate.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            var parallel = new ParallelismOptions { Ranks = Ranks, Dispatcher = _dispatcher };
            return await Task.Run(() =>
            {
                var started = Stopwatch.GetTimestamp();
                var result = work(parallel);
                return (result, Stopwatch.GetElapsedTime(started));
            }, cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            _gate.Release();
        }
    }

    /// <summary>
    /// Runs <paramref name="work"/> on the silo's cores from the calling thread, which waits for its
    /// turn: for a caller that may block (a job's own loop, not a grain turn), it spares the hop to
    /// the thread pool and back that <see cref="RunAsync{T}"/> makes on every pass.
    /// </summary>
    public (T Result, TimeSpan Compute) Run<T>(Func<ParallelismOptions, T> work, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(work);
        _gate.Wait(cancellationToken);
        try
        {
            var started = Stopwatch.GetTimestamp();
            var result = work(new ParallelismOptions { Ranks = Ranks, Dispatcher = _dispatcher });
            return (result, Stopwatch.GetElapsedTime(started));
        }
        finally
        {
            _gate.Release();
        }
    }

    public void Dispose()
    {
        _dispatcher.Dispose();
        _gate.Dispose();
    }
}
