using Salsa.Clustering.Annealing;
using Salsa.Clustering.Parallel;

namespace Salsa.Cluster.Annealing;

/// <summary>A deterministic-annealing job on the cluster: the dataset, its partition grid, and the algorithm's options.</summary>
[GenerateSerializer, Immutable]
public sealed record AnnealingJobSpec
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
        };
    }

    public AnnealingOptions ToOptions() => new()
    {
        MaxClusters = MaxClusters,
        CoolingFactor = CoolingFactor,
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

/// <summary>Where a job is: <c>running</c>, <c>succeeded</c>, <c>failed</c> or <c>cancelled</c>.</summary>
public static class JobStatuses
{
    public const string New = "new";
    public const string Running = "running";
    public const string Succeeded = "succeeded";
    public const string Failed = "failed";
    public const string Cancelled = "cancelled";
}

/// <summary>A job as its caller sees it: status, latest progress, and where it ran.</summary>
[GenerateSerializer, Immutable]
public sealed record AnnealingJobView
{
    [Id(0)] public required string Status { get; init; }

    [Id(1)] public string? Phase { get; init; }

    [Id(2)] public int Iterations { get; init; }

    [Id(3)] public double Temperature { get; init; }

    [Id(4)] public int Clusters { get; init; }

    [Id(5)] public double Objective { get; init; }

    [Id(6)] public int Partitions { get; init; }

    /// <summary>The silos the job's partitions computed on, and its coordinator's.</summary>
    [Id(7)] public string[] Silos { get; init; } = [];

    [Id(8)] public string? Coordinator { get; init; }

    /// <summary>Times the job continued from a checkpoint on another activation (its coordinator's silo was lost).</summary>
    [Id(9)] public int Resumes { get; init; }

    [Id(10)] public int Checkpoints { get; init; }

    [Id(11)] public PassStatistics Passes { get; init; } = PassStatistics.None;

    [Id(12)] public string? Error { get; init; }

    /// <summary>The run's time at its latest progress (of this activation's run, since a resume).</summary>
    [Id(13)] public TimeSpan Elapsed { get; init; }

    public bool IsFinished => Status is JobStatuses.Succeeded or JobStatuses.Failed or JobStatuses.Cancelled;
}

/// <summary>A coordinator's persisted state: what it runs, how far it got, how it ended.</summary>
[GenerateSerializer]
public sealed class AnnealingJobState
{
    [Id(0)] public AnnealingJobSpec? Spec { get; set; }

    [Id(1)] public string Status { get; set; } = JobStatuses.New;

    /// <summary>The last checkpoint (<see cref="AnnealingCheckpoint"/> as JSON) while running.</summary>
    [Id(2)] public string? Checkpoint { get; set; }

    /// <summary>The result (<see cref="AnnealingResult"/> as JSON) once succeeded.</summary>
    [Id(3)] public string? Result { get; set; }

    [Id(4)] public string? Error { get; set; }

    [Id(5)] public int Resumes { get; set; }

    [Id(6)] public int Checkpoints { get; set; }

    /// <summary>Pass statistics up to the last checkpoint (of earlier activations included).</summary>
    [Id(7)] public PassStatistics Passes { get; set; } = PassStatistics.None;

    [Id(8)] public string[] Silos { get; set; } = [];

    /// <summary>The caller's W3C trace parent, so a resumed run's spans join the same trace.</summary>
    [Id(9)] public string? TraceParent { get; set; }
}
