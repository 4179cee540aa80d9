using System.Text.Json.Nodes;

namespace Salsa.Gateway.Runs;

/// <summary>A step of a run, as the API shows it.</summary>
public sealed record StepView
{
    public required string Id { get; init; }

    public required string Service { get; init; }

    public required string Operation { get; init; }

    public IReadOnlyList<string> DependsOn { get; init; } = [];

    /// <summary>The step's parameters as it runs them: the workflow's values with the run's overrides, and every default that applied.</summary>
    public IReadOnlyDictionary<string, JsonNode?> Parameters { get; init; } = new Dictionary<string, JsonNode?>();

    public StepState State { get; init; }

    public int Attempts { get; init; }

    public DateTimeOffset? Started { get; init; }

    public DateTimeOffset? Finished { get; init; }

    public double? DurationMs { get; init; }

    public string? Error { get; init; }

    public StepProgress? Progress { get; init; }

    /// <summary>
    /// The progress the latest attempt reported, in order, thinned to at most
    /// <see cref="ProgressHistoryLimit"/> points (every other one dropped when full, the first kept):
    /// a finished run keeps the shape of its convergence.
    /// </summary>
    public IReadOnlyList<StepProgress> ProgressHistory { get; init; } = [];

    public const int ProgressHistoryLimit = 240;

    public JsonObject? Outputs { get; init; }

    /// <summary>
    /// The SHA-256 of what each output holds, once the step succeeded: for a dataset, its content
    /// (the datasets API's <c>sha256</c>); for a service job, its files (each named with its digest);
    /// for a value, its JSON. Outputs that say how the step ran (a grid job's placement) have none.
    /// A run that reproduces this one compares these.
    /// </summary>
    public IReadOnlyDictionary<string, string>? Digests { get; init; }

    /// <summary>True when the step's outputs were kept from before a gateway restart (the run was resumed).</summary>
    public bool Reused { get; init; }

    /// <summary>
    /// The service jobs the step's latest attempt started, in order: a gateway that stops mid-step
    /// finds them here when the run resumes, and watches them again instead of starting new ones.
    /// </summary>
    public IReadOnlyList<StepJob> Jobs { get; init; } = [];

    /// <summary>
    /// The state of the service job the step waits on, as the service reports it: <c>queued</c> while
    /// the service has accepted it and not started it (behind other jobs of that service), then
    /// <c>running</c>, then its end; null for a step that starts no job.
    /// </summary>
    public string? JobState { get; init; }
}

/// <summary>A job a step started on a service.</summary>
public sealed record StepJob(string Service, string JobId);
