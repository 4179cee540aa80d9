using System.Text.Json.Serialization;
using Salsa.Store;

namespace Salsa.Grid.Jobs;

/// <summary>A job as its caller sees it: status, latest progress, and where it ran.</summary>
[GenerateSerializer, Immutable]
public sealed record GridJobView
{
    /// <summary>Where the job is; null for a job never started.</summary>
    [Id(0)]
    [JsonConverter(typeof(JobStateJson))]
    public required JobState? Status { get; init; }

    [Id(1)] public string? Phase { get; init; }

    [Id(2)] public int Iterations { get; init; }

    /// <summary>The annealing temperature at the latest progress (none for k-means).</summary>
    [Id(3)] public double? Temperature { get; init; }

    [Id(4)] public int Clusters { get; init; }

    [Id(5)] public double Objective { get; init; }

    [Id(6)] public int Partitions { get; init; }

    /// <summary>The silos the job's partitions compute on now (the latest pass's).</summary>
    [Id(7)] public string[] Silos { get; init; } = [];

    [Id(8)] public string? Coordinator { get; init; }

    /// <summary>Times the job continued from a checkpoint on another activation (its coordinator's silo was lost).</summary>
    [Id(9)] public int Resumes { get; init; }

    [Id(10)] public int Checkpoints { get; init; }

    [Id(11)] public PassStatistics Passes { get; init; } = PassStatistics.None;

    [Id(12)] public string? Error { get; init; }

    /// <summary>The run's time at its latest progress (of this activation's run, since a resume).</summary>
    [Id(13)] public TimeSpan Elapsed { get; init; }

    /// <summary>The algorithm the job runs, e.g. <c>annealing</c> or <c>kmeans</c>.</summary>
    [Id(14)] public string Algorithm { get; init; } = "";

    /// <summary>Silos the job's partitions computed on earlier and no longer do: lost (the job moved off them), or left.</summary>
    [Id(15)] public string[] FormerSilos { get; init; } = [];

    public bool IsFinished => Status is JobState.Succeeded or JobState.Failed or JobState.Cancelled;
}
