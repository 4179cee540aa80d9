namespace Salsa.Hosting;

/// <summary>
/// Limits every service enforces, from configuration section <c>Salsa:Limits</c>. Requests beyond
/// them get a clear 4xx / gRPC error naming the limit, never a crash.
/// </summary>
public sealed class ServiceLimits
{
    public const string Section = "Salsa:Limits";

    /// <summary>Points in one dataset.</summary>
    public int MaxPoints { get; set; } = 2_000_000;

    /// <summary>Coordinates (dense) or bits (binary) per point.</summary>
    public int MaxDimensions { get; set; } = 4096;

    /// <summary>Clusters in one request.</summary>
    public int MaxClusters { get; set; } = 1000;

    /// <summary>Items an MDS embedding may take (its cost grows as n²).</summary>
    public int MaxEmbeddingItems { get; set; } = 10_000;

    /// <summary>Bytes of one REST request body.</summary>
    public long MaxRequestBytes { get; set; } = 256L << 20;

    /// <summary>Bytes of one gRPC message (uploads come in chunks well under this).</summary>
    public int MaxGrpcMessageBytes { get; set; } = 16 << 20;

    /// <summary>Jobs waiting to start; beyond this a start is refused with 429 / RESOURCE_EXHAUSTED.</summary>
    public int JobQueueDepth { get; set; } = 16;

    /// <summary>Jobs computing at once (each uses every core).</summary>
    public int ConcurrentJobs { get; set; } = 1;

    /// <summary>SPMD ranks per job; one per core by default.</summary>
    public int Ranks { get; set; } = Environment.ProcessorCount;

    /// <summary>The retry hint sent with a refusal.</summary>
    public TimeSpan RetryAfter { get; set; } = TimeSpan.FromSeconds(2);

    public void CheckPoints(int count, int dimensionOrBits)
    {
        if (count > MaxPoints)
        {
            throw new Errors.LimitExceededException($"{count:N0} points exceed this service's limit of {MaxPoints:N0} (Salsa:Limits:MaxPoints).");
        }

        if (dimensionOrBits > MaxDimensions)
        {
            throw new Errors.LimitExceededException($"{dimensionOrBits:N0} dimensions exceed this service's limit of {MaxDimensions:N0} (Salsa:Limits:MaxDimensions).");
        }
    }

    public void CheckClusters(int clusters)
    {
        if (clusters > MaxClusters)
        {
            throw new Errors.LimitExceededException($"{clusters:N0} clusters exceed this service's limit of {MaxClusters:N0} (Salsa:Limits:MaxClusters).");
        }
    }
}
