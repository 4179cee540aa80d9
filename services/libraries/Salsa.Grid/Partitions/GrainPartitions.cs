using System.Diagnostics;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Partitions;
using Salsa.Grid.Jobs;

namespace Salsa.Grid.Partitions;

/// <summary>
/// A dataset's partition grid as grains, seen by an algorithm's loop (annealing, k-means): each pass
/// goes to every partition at once and their sums are folded in partition order. A partition whose silo is lost
/// mid-pass is asked again (Orleans activates it on a survivor, where it reloads its rows); its sums
/// depend only on the pass and its rows, so the repeated pass gives the same bits.
/// </summary>
public sealed class GrainPartitions : IKMeansGrid
{
    private readonly IPartitionGrain[] _grains;
    private readonly TimeSpan _retryFor;
    private readonly Lock _lock = new();
    private readonly HashSet<string> _silos = new(StringComparer.Ordinal); // the latest pass's
    private readonly HashSet<string> _former = new(StringComparer.Ordinal); // earlier passes', not the latest's
    private PassStatistics _statistics = PassStatistics.None;
    private double _slowestPassMicroseconds;

    private GrainPartitions(IPartitionGrain[] grains, PartitionInfo[] infos, TimeSpan retryFor)
    {
        (_grains, _retryFor) = (grains, retryFor);
        Count = infos.Sum(i => i.Points);
        Dimension = infos[0].Dimension;
        TotalWeight = DensePartition.Fold([.. infos.Select(i => new[] { i.TotalWeight })])[0];
        _silos.UnionWith(infos.Select(i => i.Silo));
    }

    /// <summary>The grid of <paramref name="partitions"/> over <paramref name="datasetId"/>, its partitions activated (rows loaded).</summary>
    public static GrainPartitions Open(IGrainFactory grains, Guid datasetId, int partitions, TimeSpan retryFor, CancellationToken cancellationToken)
    {
        var refs = PartitionKey.Grid(datasetId, partitions).Select(k => grains.GetGrain<IPartitionGrain>(k.ToGrainKey())).ToArray();
        var retries = 0L;
        var infos = Fan(refs, g => g.InfoAsync(), retryFor, TimeSpan.FromMinutes(2), ref retries, cancellationToken);
        if (infos.Any(i => i.Dimension != infos[0].Dimension))
        {
            throw new InvalidOperationException("The partitions disagree on the dataset's dimension.");
        }

        return new GrainPartitions(refs, infos, retryFor) { _statistics = new PassStatistics(0, retries, 0, 0) };
    }

    public int Count { get; }

    public int Dimension { get; }

    public double TotalWeight { get; }

    /// <summary>Passes so far, how often a partition was asked again, and the waits split into the busiest silo's compute and the rest.</summary>
    public PassStatistics Statistics
    {
        get
        {
            lock (_lock)
            {
                return _statistics;
            }
        }
    }

    /// <summary>The silos the partitions were found on in the latest pass.</summary>
    public string[] Silos
    {
        get
        {
            lock (_lock)
            {
                return [.. _silos.Order(StringComparer.Ordinal)];
            }
        }
    }

    /// <summary>Silos partitions were found on in earlier passes and not in the latest (they moved off them).</summary>
    public string[] FormerSilos
    {
        get
        {
            lock (_lock)
            {
                return [.. _former.Order(StringComparer.Ordinal)];
            }
        }
    }

    public double[] Reduce(PartitionPass pass, CancellationToken cancellationToken)
    {
        var clock = Stopwatch.StartNew();
        var retries = 0L;
        var sums = Fan(_grains, g => g.RunAsync(pass), _retryFor, PassTimeout, ref retries, cancellationToken);
        var wall = clock.Elapsed.TotalMicroseconds;
        if (retries == 0)
        {
            // The timeout follows passes as they normally run: one that waited out a lost silo
            // must not make the next loss wait twenty times as long.
            _slowestPassMicroseconds = Math.Max(_slowestPassMicroseconds, wall);
        }
        var slowest = PartitionSums.CriticalCompute(sums);
        GridTelemetry.Passes.Add(1);
        GridTelemetry.Messaging.Record(Math.Max(0, wall - slowest));
        if (retries > 0)
        {
            GridTelemetry.Retries.Add(retries);
        }

        lock (_lock)
        {
            _statistics = _statistics with
            {
                Passes = _statistics.Passes + 1,
                Retries = _statistics.Retries + retries,
                ComputeMicroseconds = _statistics.ComputeMicroseconds + slowest,
                MessagingMicroseconds = _statistics.MessagingMicroseconds + Math.Max(0, wall - slowest),
                LongestPassMicroseconds = Math.Max(_statistics.LongestPassMicroseconds, wall),
            };
            // The latest pass's silos replace the last; those it no longer uses become former ones.
            var latest = sums.Select(s => s.Silo).ToHashSet(StringComparer.Ordinal);
            _former.UnionWith(_silos);
            _former.ExceptWith(latest);
            _silos.Clear();
            _silos.UnionWith(latest);
        }

        return DensePartition.Fold([.. sums.Select(s => s.Sums)]);
    }

    public PartitionAssignments Assign(PartitionPass pass, CancellationToken cancellationToken)
    {
        var retries = 0L;
        var rows = Fan(_grains, g => g.AssignAsync(pass), _retryFor, PassTimeout, ref retries, cancellationToken);
        return new PartitionAssignments([.. rows.SelectMany(r => r.Assignments)], [.. rows.SelectMany(r => r.Weights)]);
    }

    public double[] SeedMasses(KMeansSeedStep seeding, CancellationToken cancellationToken)
    {
        var retries = 0L;
        var masses = Fan(_grains, g => g.SeedMassAsync(seeding), _retryFor, PassTimeout, ref retries, cancellationToken);
        CountRetries(retries);
        return masses;
    }

    public KMeansCandidate[] Pick(int partition, KMeansSeedStep seeding, double[] targets, CancellationToken cancellationToken)
    {
        var retries = 0L;
        var candidates = Fan([_grains[partition]], g => g.PickAsync(seeding, targets), _retryFor, PassTimeout, ref retries, cancellationToken)[0];
        CountRetries(retries);
        return candidates;
    }

    public double[][] SeedPotentials(KMeansSeedStep seeding, double[] candidates, CancellationToken cancellationToken)
    {
        var retries = 0L;
        var potentials = Fan(_grains, g => g.SeedPotentialsAsync(seeding, candidates), _retryFor, PassTimeout, ref retries, cancellationToken);
        CountRetries(retries);
        return potentials;
    }

    public KMeansCandidate[] Farthest(double[] centres, int kp, CancellationToken cancellationToken)
    {
        var retries = 0L;
        var candidates = Fan(_grains, g => g.FarthestAsync(centres, kp), _retryFor, PassTimeout, ref retries, cancellationToken);
        CountRetries(retries);
        return candidates;
    }

    private void CountRetries(long retries)
    {
        if (retries > 0)
        {
            GridTelemetry.Retries.Add(retries);
            lock (_lock)
            {
                _statistics = _statistics with { Retries = _statistics.Retries + retries };
            }
        }
    }

    // A call to a silo that was killed mid-call gets no answer until Orleans gives up on it (its
    // response timeout, 30 s); a pass that takes far longer than any before is asked again sooner.
    // Asking again is harmless: a partition's sums depend only on the pass and its rows.
    private TimeSpan PassTimeout => TimeSpan.FromMicroseconds(Math.Max(2e6, 20 * _slowestPassMicroseconds));

    // Runs on the job's own thread (never a grain turn), so it waits for the calls.
    private static T[] Fan<T>(IPartitionGrain[] grains, Func<IPartitionGrain, Task<T>> call, TimeSpan retryFor, TimeSpan timeout, ref long retries, CancellationToken cancellationToken)
    {
        var (results, asked) = FanAsync(grains, call, retryFor, timeout, cancellationToken).GetAwaiter().GetResult();
        retries += asked;
        return results;
    }

    /// <summary>
    /// Calls every partition at once and returns their answers in partition order, with how many
    /// calls were asked again: a call that failed transiently (<see cref="IsTransient"/>) or was
    /// cancelled by the runtime while the cluster replaced a silo is asked again, with back-off, for
    /// up to <paramref name="retryFor"/>; any other failure is a <see cref="PartitionFailedException"/>.
    /// </summary>
    internal static async Task<(T[] Results, long Retries)> FanAsync<T>(
        IPartitionGrain[] grains, Func<IPartitionGrain, Task<T>> call, TimeSpan retryFor, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var results = new T[grains.Length];
        var pending = Enumerable.Range(0, grains.Length).ToArray();
        var deadline = Stopwatch.StartNew();
        var backoff = TimeSpan.FromMilliseconds(100);
        var retries = 0L;
        while (true)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var calls = pending.Select(i => call(grains[i]).WaitAsync(timeout, cancellationToken)).ToArray();
            try
            {
                await Task.WhenAll(calls).ConfigureAwait(false);
            }
            catch (Exception) when (!cancellationToken.IsCancellationRequested)
            {
                // Inspected call by call below.
            }

            cancellationToken.ThrowIfCancellationRequested();
            var failed = new List<int>();
            for (var c = 0; c < calls.Length; c++)
            {
                // A call the runtime cancelled (not us: checked above) has no exception of its own.
                var error = calls[c].IsCompletedSuccessfully ? null : calls[c].Exception?.InnerException ?? new OperationCanceledException("The runtime cancelled the call.");
                if (error is null)
                {
                    results[pending[c]] = calls[c].Result;
                }
                else if (IsTransient(error) && deadline.Elapsed < retryFor)
                {
                    failed.Add(pending[c]);
                }
                else
                {
                    throw new PartitionFailedException(pending[c], error);
                }
            }

            if (failed.Count == 0)
            {
                return (results, retries);
            }

            retries += failed.Count;
            pending = [.. failed];
            await Task.Delay(backoff, cancellationToken).ConfigureAwait(false);
            backoff = TimeSpan.FromTicks(Math.Min(backoff.Ticks * 2, TimeSpan.FromSeconds(2).Ticks));
        }
    }

    // A lost silo, a message refused or timed out while the cluster learns of it, a partition that
    // could not reach the database to load its rows: worth asking again.
    internal static bool IsTransient(Exception exception) =>
        exception is SiloUnavailableException or OrleansMessageRejectionException or TimeoutException or Orleans.Runtime.Messaging.ConnectionFailedException
            or System.Data.Common.DbException { IsTransient: true }
            // The runtime gave up on a call while its directory or placement waited on a lost silo.
            or OperationCanceledException
        || (exception is OrleansException && exception.Message.Contains("unavailable", StringComparison.OrdinalIgnoreCase));
}

/// <summary>A partition failed in a way asking again will not mend (its data, or a lost silo past the retry time).</summary>
public sealed class PartitionFailedException(int partition, Exception inner)
    : Exception($"Partition {partition} failed: {inner.Message}", inner)
{
    public int Partition { get; } = partition;
}
