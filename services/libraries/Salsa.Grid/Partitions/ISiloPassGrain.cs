using Orleans.Concurrency;
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
    /// rows loaded; partitions held or staged here already are skipped. Interleaved with passes, and
    /// read and decoded off the grain's turn: a silo taking over partitions it computes beside
    /// goes on answering passes while their rows load (before, a leave's passes waited out the load,
    /// 2.7 s at 10 M points); such a silo rests after each read as long as it took.
    /// </summary>
    [AlwaysInterleave]
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
