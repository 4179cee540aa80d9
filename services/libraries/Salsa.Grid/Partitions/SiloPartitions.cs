using System.Collections.Concurrent;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;
using Salsa.Grid.Compute;

namespace Salsa.Grid.Partitions;

/// <summary>
/// The partitions a silo holds in memory, by grain key: each partition grain adds its rows when it
/// activates (after loading them) and removes them when it deactivates. The silo's pass grain
/// computes on them directly, so a pass costs one call per silo, not one per partition.
/// </summary>
public sealed class SiloPartitions
{
    private readonly ConcurrentDictionary<string, DensePartition> _held = new(StringComparer.Ordinal);

    // A partition's k-means seeding state, kept between seeding steps (each then costs one distance
    // per row) and shared by its grain and a coordinator computing it in place: one state per rows.
    private readonly ConditionalWeakTable<DensePartition, KMeansPartition> _kmeans = [];

    public void Add(string key, DensePartition partition) => _held[key] = partition;

    public void Remove(string key, DensePartition partition) => _held.TryRemove(new KeyValuePair<string, DensePartition>(key, partition));

    public bool TryGet(string key, out DensePartition partition) => _held.TryGetValue(key, out partition!);

    /// <summary>The k-means seeding state of <paramref name="partition"/>'s rows, made at first use.</summary>
    public KMeansPartition KMeansOf(DensePartition partition) => _kmeans.GetValue(partition, rows => new KMeansPartition(rows));

    /// <summary>
    /// The sums of those of <paramref name="partitions"/> this silo holds, computed in one turn on its
    /// cores, one after another as their grains would compute them (null for the others), each
    /// answered as from <paramref name="silo"/>.
    /// </summary>
    public async Task<PartitionSums?[]> RunHeldAsync(SiloCompute compute, string silo, PartitionPass pass, string[] partitions)
    {
        ArgumentNullException.ThrowIfNull(compute);
        var (held, work) = HeldPass(pass, partitions);
        return held is null ? new PartitionSums?[partitions.Length] : Answers((await compute.RunAsync(work).ConfigureAwait(false)).Result, silo);
    }

    /// <summary>
    /// <see cref="RunHeldAsync"/> from a caller that may block (a job's loop computing its own
    /// silo's partitions in place): the same sums, computed on the calling thread.
    /// </summary>
    public PartitionSums?[] RunHeld(SiloCompute compute, string silo, PartitionPass pass, string[] partitions, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(compute);
        var (held, work) = HeldPass(pass, partitions);
        return held is null ? new PartitionSums?[partitions.Length] : Answers(compute.Run(work, cancellationToken).Result, silo);
    }

    /// <summary>The partitions of <paramref name="partitions"/> held here (null when none is) and the work that computes their sums one after another.</summary>
    private (DensePartition?[]? Held, Func<ParallelismOptions, PartitionSums?[]> Work) HeldPass(PartitionPass pass, string[] partitions)
    {
        ArgumentNullException.ThrowIfNull(partitions);
        var local = new DensePartition?[partitions.Length];
        for (var i = 0; i < partitions.Length; i++)
        {
            local[i] = TryGet(partitions[i], out var partition) ? partition : null;
        }

        return (local.All(p => p is null) ? null : local, parallel =>
            PartitionPassWork.RunAll([.. local.Select(p => p is null ? null : (Func<double[]>)(() => p.Run(pass, parallel)))], silo: ""));
    }

    private static PartitionSums?[] Answers(PartitionSums?[] sums, string silo) =>
        [.. sums.Select(s => s is null ? null : s with { Silo = silo })];

    /// <summary>
    /// A k-means seeding step for those of <paramref name="partitions"/> this silo holds, computed in
    /// one turn on its cores on the state their grains keep; the others are marked not held.
    /// </summary>
    public async Task<SiloSeedAnswer<T>> SeedHeldAsync<T>(SiloCompute compute, string[] partitions, Func<KMeansPartition, T> step)
    {
        ArgumentNullException.ThrowIfNull(compute);
        ArgumentNullException.ThrowIfNull(partitions);
        ArgumentNullException.ThrowIfNull(step);
        var rows = new DensePartition?[partitions.Length];
        for (var i = 0; i < partitions.Length; i++)
        {
            rows[i] = TryGet(partitions[i], out var partition) ? partition : null;
        }

        if (rows.All(r => r is null))
        {
            return new SiloSeedAnswer<T>(new T[partitions.Length], new bool[partitions.Length]); // nothing here: no turn on the cores
        }

        var (values, _) = await compute.RunAsync(_ => rows.Select(r => r is null ? default! : step(KMeansOf(r))).ToArray()).ConfigureAwait(false);
        return new SiloSeedAnswer<T>(values, [.. rows.Select(r => r is not null)]);
    }

    /// <summary>
    /// The answers for <paramref name="partitions"/>: those this silo holds computed here, the others
    /// (moved since the caller last saw them: a lost silo, a deactivation) asked of their own grains.
    /// </summary>
    public async Task<SiloPassAnswer> RunAsync(IGrainFactory grains, SiloCompute compute, string silo, PartitionPass pass, string[] partitions)
    {
        ArgumentNullException.ThrowIfNull(grains);
        var arrived = Stopwatch.GetTimestamp();
        var held = await RunHeldAsync(compute, silo, pass, partitions).ConfigureAwait(false);
        var elsewhere = Enumerable.Range(0, partitions.Length).Where(i => held[i] is null).ToArray();
        var answers = new PartitionSums[partitions.Length];
        if (elsewhere.Length > 0)
        {
            GridTelemetry.Forwarded.Add(elsewhere.Length);
            var moved = await Task.WhenAll(elsewhere.Select(i => grains.GetGrain<IPartitionGrain>(partitions[i]).RunAsync(pass))).ConfigureAwait(false);
            for (var j = 0; j < elsewhere.Length; j++)
            {
                held[elsewhere[j]] = moved[j];
            }
        }

        for (var i = 0; i < answers.Length; i++)
        {
            answers[i] = held[i]!;
        }

        return new SiloPassAnswer(answers, Stopwatch.GetElapsedTime(arrived).TotalMicroseconds, arrived, Stopwatch.GetTimestamp());
    }
}

/// <summary>The silo a coordinator runs on, whose partitions it computes in place, without a grain call.</summary>
public sealed record LocalSilo(string Identity, SiloPartitions Held, SiloCompute Compute);
