using System.Diagnostics;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Partitions;

namespace Salsa.Grid.Partitions;

/// <summary>
/// One grain per silo (keyed by the silo's identity, placed on it) that runs a pass over the
/// partitions of a grid this silo holds: the partitions' sums come back in one answer, each
/// computed exactly as its partition grain would (the same rows, the same ranks), so the
/// coordinator folds them in partition order and the bits do not change.
/// </summary>
public interface ISiloPassGrain : IGrainWithStringKey
{
    /// <summary>
    /// Each of <paramref name="partitions"/>' sums for <paramref name="pass"/>, in the order given.
    /// A partition this silo no longer holds is asked through its own grain (wherever it now is).
    /// </summary>
    Task<SiloPassAnswer> RunAsync(PartitionPass pass, string[] partitions);

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
/// A silo's answer to a pass: each partition's sums, how long the silo took from the call's arrival
/// to its answer (its compute included), and the two instants on the silo's monotonic clock
/// (<see cref="Stopwatch.GetTimestamp"/>: comparable with a caller's only on the same host, where
/// they split a call's travel into its way in and its way back).
/// </summary>
[GenerateSerializer, Immutable]
public sealed record SiloPassAnswer(
    [property: Id(0)] PartitionSums[] Sums, [property: Id(1)] double TurnMicroseconds, [property: Id(2)] long ArrivedTimestamp, [property: Id(3)] long AnsweredTimestamp);
