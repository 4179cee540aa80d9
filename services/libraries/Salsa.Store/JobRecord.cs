namespace Salsa.Store;

/// <summary>A job and everything known about it.</summary>
public sealed record JobRecord
{
    public required Guid Id { get; init; }

    /// <summary>The service that owns it (e.g. <c>annealing</c>).</summary>
    public required string Service { get; init; }

    /// <summary>What it does (e.g. <c>annealing</c>, <c>butina</c>, <c>census-map</c>).</summary>
    public required string Kind { get; init; }

    public required JobState State { get; init; }

    public required DateTimeOffset Created { get; init; }

    public DateTimeOffset? Started { get; init; }

    public DateTimeOffset? Finished { get; init; }

    /// <summary>Time between acceptance and start.</summary>
    public double QueueMilliseconds { get; init; }

    /// <summary>Time running.</summary>
    public double ComputeMilliseconds { get; init; }

    public Guid? DatasetId { get; init; }

    /// <summary>The request, as JSON.</summary>
    public string ParametersJson { get; init; } = "{}";

    /// <summary>The last progress event, as JSON.</summary>
    public string? ProgressJson { get; init; }

    /// <summary>The result summary, as JSON (large arrays are artifacts).</summary>
    public string? ResultJson { get; init; }

    public string? Error { get; init; }

    /// <summary>The tenant that owns it (<see cref="Tenants"/>).</summary>
    public string Tenant { get; init; } = Tenants.Local;

    /// <summary>What its work used, once it ended (null while it runs, and for jobs stored before this was kept).</summary>
    public JobResources? Resources { get; init; }
}

/// <summary>Life of a job. Terminal: Succeeded, Failed, Cancelled, Interrupted.</summary>
public enum JobState
{
    Queued = 1,
    Running = 2,
    Succeeded = 3,
    Failed = 4,
    Cancelled = 5,

    /// <summary>The service stopped while the job was queued or running.</summary>
    Interrupted = 6,
}
