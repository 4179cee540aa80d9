using System.Text.Json;
using System.Text.Json.Serialization;
using Salsa.Store;

namespace Salsa.Grid.Jobs;

/// <summary>What every job on the cluster names: its dataset and partition grid (the algorithm's options are its own).</summary>
public interface IGridJobSpec
{
    Guid DatasetId { get; }

    /// <summary>The partition grid: the result depends on it, never on the silos.</summary>
    int Partitions { get; }

    /// <summary>Throws a clear exception when the algorithm's options are not valid.</summary>
    void Validate();
}

/// <summary>
/// A job's state as JSON writes it: the store's <see cref="JobState"/> (the one definition), lower
/// case (<c>running</c>, <c>succeeded</c>), as the services' Jobs API names it.
/// </summary>
public sealed class JobStateJson() : JsonStringEnumConverter<JobState>(JsonNamingPolicy.SnakeCaseLower);

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

/// <summary>A coordinator's persisted state: what it runs, how far it got, how it ended.</summary>
[GenerateSerializer]
public sealed class GridJobState<TSpec>
    where TSpec : class
{
    [Id(0)] public TSpec? Spec { get; set; }

    /// <summary>Null until the job starts.</summary>
    [Id(1)] public JobState? Status { get; set; }

    /// <summary>The last checkpoint (the algorithm's checkpoint as JSON) while running.</summary>
    [Id(2)] public string? Checkpoint { get; set; }

    /// <summary>The result (the algorithm's result as JSON) once succeeded.</summary>
    [Id(3)] public string? Result { get; set; }

    [Id(4)] public string? Error { get; set; }

    [Id(5)] public int Resumes { get; set; }

    [Id(6)] public int Checkpoints { get; set; }

    /// <summary>Pass statistics up to the last checkpoint (of earlier activations included).</summary>
    [Id(7)] public PassStatistics Passes { get; set; } = PassStatistics.None;

    /// <summary>The silos of the latest checkpoint's passes.</summary>
    [Id(8)] public string[] Silos { get; set; } = [];

    /// <summary>Silos of earlier checkpoints (and activations) that the latest does not use.</summary>
    [Id(10)] public string[] FormerSilos { get; set; } = [];

    /// <summary>The caller's W3C trace parent, so a resumed run's spans join the same trace.</summary>
    [Id(9)] public string? TraceParent { get; set; }
}

/// <summary>Passes of a job and where their time went.</summary>
[GenerateSerializer, Immutable]
public sealed record PassStatistics(
    [property: Id(0)] long Passes,
    [property: Id(1)] long Retries,
    [property: Id(2)] double ComputeMicroseconds,
    [property: Id(3)] double MessagingMicroseconds)
{
    public static PassStatistics None { get; } = new(0, 0, 0, 0);

    /// <summary>
    /// The longest a single pass waited, partitions asked again included: after a lost silo, the
    /// interrupted pass's wait is the job's time to recover (failure detection, the directory's
    /// lease, the partitions reactivated on survivors and their rows reloaded).
    /// </summary>
    [Id(4)] public double LongestPassMicroseconds { get; init; }

    public PassStatistics Add(PassStatistics other)
    {
        ArgumentNullException.ThrowIfNull(other);
        return new(Passes + other.Passes, Retries + other.Retries, ComputeMicroseconds + other.ComputeMicroseconds, MessagingMicroseconds + other.MessagingMicroseconds)
        {
            LongestPassMicroseconds = Math.Max(LongestPassMicroseconds, other.LongestPassMicroseconds),
        };
    }
}

/// <summary>
/// The algorithm's state kept in grain state (checkpoints, results) as JSON: every double to the bit
/// (the shortest text that reads back to the same value), −∞ log masses included.
/// </summary>
public static class StateJson
{
    private static readonly JsonSerializerOptions s_options = new(JsonSerializerDefaults.Web)
    {
        NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
    };

    public static string Write<T>(T value) => JsonSerializer.Serialize(value, s_options);

    public static T Read<T>(string json) => JsonSerializer.Deserialize<T>(json, s_options) ?? throw new JsonException($"No {typeof(T).Name} in the state.");
}
