using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;
using Salsa.Grid.Jobs;

namespace Salsa.Grid.KMeans;

/// <summary>A k-means job on the cluster: the dataset, its partition grid, and the algorithm's options.</summary>
[GenerateSerializer, Immutable]
public sealed record KMeansJobSpec : IGridJobSpec
{
    [Id(0)] public required Guid DatasetId { get; init; }

    /// <summary>The partition grid: the result depends on it, never on the silos.</summary>
    [Id(1)] public required int Partitions { get; init; }

    [Id(2)] public required int Clusters { get; init; }

    [Id(3)] public int Restarts { get; init; } = 1;

    [Id(4)] public int MaxIterations { get; init; } = 300;

    [Id(5)] public double Tolerance { get; init; }

    [Id(6)] public int Seed { get; init; }

    [Id(7)] public int? BlockSize { get; init; }

    public static KMeansJobSpec From(Guid datasetId, int partitions, KMeansOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return new()
        {
            DatasetId = datasetId,
            Partitions = partitions,
            Clusters = options.Clusters,
            Restarts = options.Restarts,
            MaxIterations = options.MaxIterations,
            Tolerance = options.Tolerance,
            Seed = options.Seed,
            BlockSize = options.Parallel.BlockSize,
        };
    }

    public void Validate() => ToOptions().Validate(Math.Max(Partitions, Clusters));

    public KMeansOptions ToOptions() => new()
    {
        Clusters = Clusters,
        Restarts = Restarts,
        MaxIterations = MaxIterations,
        Tolerance = Tolerance,
        Seed = Seed,
        Parallel = new ParallelismOptions { Ranks = 1, BlockSize = BlockSize },
    };
}
