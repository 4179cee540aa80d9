using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;
using Salsa.Grid.Jobs;

namespace Salsa.Grid.KMeans;

/// <summary>
/// A k-means job on the grid: the dataset, its partition grid, and the algorithm's options as the
/// service bound them from the request (they travel whole, <see cref="GridSerialization"/>).
/// </summary>
[GenerateSerializer, Immutable]
public sealed record KMeansJobSpec : IGridJobSpec
{
    [Id(0)] public required Guid DatasetId { get; init; }

    /// <summary>The partition grid: the result depends on it, never on the silos.</summary>
    [Id(1)] public required int Partitions { get; init; }

    /// <summary>The options; each partition computes on one rank, in blocks of <see cref="ParallelismOptions.BlockSize"/>.</summary>
    [Id(2)] public required KMeansOptions Options { get; init; }

    public static KMeansJobSpec From(Guid datasetId, int partitions, KMeansOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return new() { DatasetId = datasetId, Partitions = partitions, Options = options with { Parallel = GridSerialization.PartitionRanks(options.Parallel) } };
    }

    public void Validate() => Options.Validate(Math.Max(Partitions, Options.Clusters));
}
