using Salsa.Clustering.KMeans;
using Salsa.Clustering.Partitions;

namespace Salsa.Grid.Partitions;

/// <summary>k-means++ seeding steps over the grid: in place on the coordinator's silo, one call per other silo.</summary>
public sealed partial class GrainPartitions
{
    public double[] SeedMasses(KMeansSeedStep seeding, CancellationToken cancellationToken) =>
        FanKMeans(AllPartitions, g => g.SeedMassAsync(seeding), (s, keys) => s.SeedMassAsync(seeding, keys), k => k.SeedMass(seeding), cancellationToken);

    public KMeansCandidate[] Pick(int partition, KMeansSeedStep seeding, double[] targets, CancellationToken cancellationToken) =>
        FanKMeans([partition], g => g.PickAsync(seeding, targets), null, k => k.Pick(seeding, targets), cancellationToken)[0];

    public double[][] SeedPotentials(KMeansSeedStep seeding, double[] candidates, CancellationToken cancellationToken) =>
        FanKMeans(AllPartitions, g => g.SeedPotentialsAsync(seeding, candidates), (s, keys) => s.SeedPotentialsAsync(seeding, candidates, keys), k => k.SeedPotentials(seeding, candidates), cancellationToken);

    public KMeansCandidate[] Farthest(double[] centres, int kp, CancellationToken cancellationToken) =>
        FanKMeans(AllPartitions, g => g.FarthestAsync(centres, kp), (s, keys) => s.FarthestAsync(centres, kp, keys), k => k.Farthest(centres, kp), cancellationToken);

    private int[] AllPartitions => [.. Enumerable.Range(0, _grains.Length)];

    /// <summary>
    /// A k-means seeding step's answers for <paramref name="partitions"/>, in their order, as a pass
    /// is asked: those the coordinator's own silo holds computed in place, in one turn on its cores
    /// and on the state their grains keep (<see cref="SiloPartitions.KMeansOf"/>); one call to each
    /// other silo for the partitions it held last (<paramref name="bySilo"/>; null for a step of one
    /// partition); a partition a silo no longer holds, or whose silo did not answer, asked of its own
    /// grain with <see cref="FanAsync"/>'s retries. On a single silo a seeding makes no grain call.
    /// </summary>
    private T[] FanKMeans<T>(
        int[] partitions, Func<IPartitionGrain, Task<T>> call, Func<ISiloPassGrain, string[], Task<SiloSeedAnswer<T>>>? bySilo,
        Func<KMeansPartition, T> inPlace, CancellationToken cancellationToken)
    {
        var local = _local;
        var here = new List<(int Index, DensePartition Rows)>();
        var held = new bool[partitions.Length];
        for (var j = 0; j < partitions.Length && local is not null; j++)
        {
            if (local.Held.TryGet(_keys[partitions[j]], out var rows))
            {
                here.Add((j, rows));
                held[j] = true;
            }
        }

        string[] homes;
        lock (_lock)
        {
            homes = [.. _homes];
        }

        var timeout = PassTimeout;
        var elsewhere = Enumerable.Range(0, partitions.Length).Where(j => !held[j]).ToArray();
        var groups = bySilo is null ? [] : elsewhere.GroupBy(j => homes[partitions[j]], StringComparer.Ordinal).Select(g => g.ToArray()).ToArray();
        var siloCalls = groups.Select(g => bySilo!(_factory.GetGrain<ISiloPassGrain>(homes[partitions[g[0]]]), [.. g.Select(j => _keys[partitions[j]])]).WaitAsync(timeout, cancellationToken)).ToArray();
        var results = new T[partitions.Length];
        if (local is not null && here.Count > 0)
        {
            var (answers, _) = local.Compute.RunAsync(_ => here.Select(h => inPlace(local.Held.KMeansOf(h.Rows))).ToArray(), cancellationToken).GetAwaiter().GetResult();
            for (var i = 0; i < here.Count; i++)
            {
                results[here[i].Index] = answers[i];
            }
        }

        try
        {
            Task.WhenAll(siloCalls).GetAwaiter().GetResult();
        }
        catch (Exception) when (!cancellationToken.IsCancellationRequested)
        {
            // Inspected call by call below.
        }

        cancellationToken.ThrowIfCancellationRequested();
        var unanswered = bySilo is null ? [.. elsewhere] : new List<int>();
        for (var c = 0; c < siloCalls.Length; c++)
        {
            var answer = siloCalls[c].IsCompletedSuccessfully ? siloCalls[c].Result : null;
            for (var i = 0; i < groups[c].Length; i++)
            {
                if (answer is not null && answer.Held[i])
                {
                    results[groups[c][i]] = answer.Values[i];
                }
                else
                {
                    unanswered.Add(groups[c][i]);
                }
            }
        }

        Interlocked.Increment(ref _seedingSteps);
        Interlocked.Add(ref _seedingInPlace, here.Count);
        Interlocked.Add(ref _seedingCalls, siloCalls.Length + unanswered.Count);
        if (unanswered.Count > 0)
        {
            var (answers, retries) = FanAsync([.. unanswered.Select(j => _grains[partitions[j]])], call, _retryFor, timeout, cancellationToken).GetAwaiter().GetResult();
            for (var i = 0; i < unanswered.Count; i++)
            {
                results[unanswered[i]] = answers[i];
            }

            CountRetries(retries);
        }

        return results;
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
}
