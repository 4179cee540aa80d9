using System.Diagnostics;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Partitions;

namespace Salsa.Grid.Partitions;

/// <summary>
/// One grain per silo (keyed by the silo's identity, placed on it) that runs a pass over the
/// partitions of a grid this silo holds: each partition's sums computed exactly as its partition
/// grain would (the same rows, the same ranks), added up in the grid's <see cref="ReductionTree"/>
/// order with the answers of the silos below it in the pass's fan-in tree, and answered as the
/// tree's nodes — so the coordinator hears from a bounded number of silos and the bits do not change.
/// </summary>
public interface ISiloPassGrain : IGrainWithStringKey
{
    /// <summary>
    /// <paramref name="plan"/>'s partitions' sums for <paramref name="pass"/>, with those of the
    /// silos below it, as the fewest nodes of the reduction tree. A partition this silo no longer
    /// holds is asked through its own grain (wherever it now is); one that could not be answered,
    /// and every partition of a silo below that did not answer, is named in
    /// <see cref="SiloTreeAnswer.Missing"/> for the caller to ask again.
    /// </summary>
    Task<SiloTreeAnswer> RunAsync(PartitionPass pass, SiloPassPlan plan);

    /// <summary>
    /// Loads the rows of <paramref name="partitions"/> of the grid of <paramref name="count"/> over
    /// <paramref name="datasetId"/> into this silo's staging, ahead of their move here: each
    /// partition's activation on this silo then takes them without reading the store. Returns the
    /// rows loaded; partitions held or staged here already are skipped.
    /// </summary>
    Task<long> PrefetchAsync(Guid datasetId, int count, int[] partitions);

    /// <summary>The k-means++ masses of those of <paramref name="partitions"/> this silo holds (<see cref="IPartitionGrain.SeedMassAsync"/>).</summary>
    Task<SiloSeedAnswer<double>> SeedMassAsync(KMeansSeedStep seeding, string[] partitions);

    /// <summary>Candidates' potentials over those of <paramref name="partitions"/> this silo holds (<see cref="IPartitionGrain.SeedPotentialsAsync"/>).</summary>
    Task<SiloSeedAnswer<double[]>> SeedPotentialsAsync(KMeansSeedStep seeding, double[] candidates, string[] partitions);

    /// <summary>The farthest point from <paramref name="centres"/> in each of <paramref name="partitions"/> this silo holds (<see cref="IPartitionGrain.FarthestAsync"/>).</summary>
    Task<SiloSeedAnswer<KMeansCandidate>> FarthestAsync(double[] centres, int kp, string[] partitions);
}

/// <summary>A silo's answers to a seeding step, in the order of the partitions asked; <see cref="Held"/> false where it no longer holds one (its value meaningless: ask its grain).</summary>
[GenerateSerializer, Immutable]
public sealed record SiloSeedAnswer<T>([property: Id(0)] T[] Values, [property: Id(1)] bool[] Held);

/// <summary>
/// A silo's part of one pass in the pass's fan-in tree: the partitions of the grid (indices of
/// <see cref="Count"/> over <see cref="DatasetId"/>) it answers for, the silos below it, and how
/// long its caller waits for its answer (longer the more levels wait below it).
/// </summary>
[GenerateSerializer, Immutable]
public sealed record SiloPassPlan(
    [property: Id(0)] string Silo, [property: Id(1)] Guid DatasetId, [property: Id(2)] int Count, [property: Id(3)] int[] Partitions,
    [property: Id(4)] SiloPassPlan[] Children, [property: Id(5)] TimeSpan Timeout)
{
    /// <summary>Its partitions and those of every silo below it.</summary>
    public IEnumerable<int> AllPartitions => Partitions.Concat(Children.SelectMany(c => c.AllPartitions));

    /// <summary>The grain key of partition <paramref name="index"/> of the grid.</summary>
    public string KeyOf(int index) => new PartitionKey(DatasetId, index, Count).ToGrainKey();
}

/// <summary>A node of the grid's reduction tree, partitions <c>[Lo, Hi)</c>, and its sums.</summary>
[GenerateSerializer, Immutable]
public sealed record ReducedSums([property: Id(0)] int Lo, [property: Id(1)] int Hi, [property: Id(2)] double[] Sums)
{
    public ReductionTree.Node Node => new(Lo, Hi);
}

/// <summary>
/// What one silo computed for a pass: the partitions it answered for, how long it computed them
/// (one after another, not counting a wait for its cores) and the CPU time that took.
/// </summary>
[GenerateSerializer, Immutable]
public sealed record SiloTurn([property: Id(0)] string Silo, [property: Id(1)] int[] Partitions, [property: Id(2)] double ComputeMicroseconds, [property: Id(3)] double CpuMicroseconds)
{
    /// <summary>
    /// The compute a pass had to wait for: a silo computes its partitions one after another, so
    /// the busiest silo's total. The rest of the wait is messaging.
    /// </summary>
    public static double CriticalCompute(IEnumerable<SiloTurn> turns) =>
        turns.GroupBy(t => t.Silo, StringComparer.Ordinal).Select(g => g.Sum(t => t.ComputeMicroseconds)).DefaultIfEmpty(0).Max();
}

/// <summary>
/// A silo's answer to a pass, for its subtree of the fan-in tree: the sums as the fewest nodes of
/// the reduction tree, the partitions nobody answered for, each silo's turn, how long this silo took
/// from the call's arrival to its answer (its compute and its children's included), and the two
/// instants on its monotonic clock (<see cref="Stopwatch.GetTimestamp"/>: comparable with a caller's
/// only on the same host, where they split a call's travel into its way in and its way back).
/// </summary>
[GenerateSerializer, Immutable]
public sealed record SiloTreeAnswer(
    [property: Id(0)] ReducedSums[] Nodes, [property: Id(1)] int[] Missing, [property: Id(2)] SiloTurn[] Turns,
    [property: Id(3)] double TurnMicroseconds, [property: Id(4)] long ArrivedTimestamp, [property: Id(5)] long AnsweredTimestamp)
{
    /// <summary>Silos of the subtree asked to leave: their partitions are moved off before the next pass.</summary>
    [Id(6)] public string[] Leaving { get; init; } = [];
}
