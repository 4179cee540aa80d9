using Salsa.Clustering.Annealing;
using Salsa.Clustering.Parallel;
using Salsa.Grid.Jobs;

namespace Salsa.Grid.Annealing;

/// <summary>A deterministic-annealing job on the cluster: the dataset, its partition grid, and the algorithm's options.</summary>
[GenerateSerializer, Immutable]
public sealed record AnnealingJobSpec : IGridJobSpec
{
    [Id(0)] public required Guid DatasetId { get; init; }

    /// <summary>The partition grid: the result depends on it, never on the silos.</summary>
    [Id(1)] public required int Partitions { get; init; }

    [Id(2)] public required int MaxClusters { get; init; }

    [Id(3)] public double CoolingFactor { get; init; }

    [Id(4)] public double? StartTemperature { get; init; }

    [Id(5)] public double? MinTemperature { get; init; }

    [Id(6)] public int MaxTemperatures { get; init; }

    [Id(7)] public int MaxIterationsPerTemperature { get; init; }

    [Id(8)] public double Tolerance { get; init; }

    [Id(9)] public double SplitPerturbation { get; init; }

    [Id(10)] public double StopHardness { get; init; }

    [Id(11)] public int FinalRefinementIterations { get; init; }

    [Id(12)] public int SplitMergeAttempts { get; init; }

    [Id(13)] public int? BlockSize { get; init; }

    [Id(14)] public bool FixedCooling { get; init; }

    public static AnnealingJobSpec From(Guid datasetId, int partitions, AnnealingOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return new()
        {
            DatasetId = datasetId,
            Partitions = partitions,
            MaxClusters = options.MaxClusters,
            CoolingFactor = options.CoolingFactor,
            StartTemperature = options.StartTemperature,
            MinTemperature = options.MinTemperature,
            MaxTemperatures = options.MaxTemperatures,
            MaxIterationsPerTemperature = options.MaxIterationsPerTemperature,
            Tolerance = options.Tolerance,
            SplitPerturbation = options.SplitPerturbation,
            StopHardness = options.StopHardness,
            FinalRefinementIterations = options.FinalRefinementIterations,
            SplitMergeAttempts = options.SplitMergeAttempts,
            BlockSize = options.Parallel.BlockSize,
            FixedCooling = options.FixedCooling,
        };
    }

    public void Validate() => ToOptions().Validate(Math.Max(Partitions, MaxClusters));

    public AnnealingOptions ToOptions() => new()
    {
        MaxClusters = MaxClusters,
        CoolingFactor = CoolingFactor,
        FixedCooling = FixedCooling,
        StartTemperature = StartTemperature,
        MinTemperature = MinTemperature,
        MaxTemperatures = MaxTemperatures,
        MaxIterationsPerTemperature = MaxIterationsPerTemperature,
        Tolerance = Tolerance,
        SplitPerturbation = SplitPerturbation,
        StopHardness = StopHardness,
        FinalRefinementIterations = FinalRefinementIterations,
        SplitMergeAttempts = SplitMergeAttempts,
        Parallel = new ParallelismOptions { Ranks = 1, BlockSize = BlockSize },
    };
}
