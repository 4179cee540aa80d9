using System.ComponentModel.DataAnnotations;
using System.Globalization;
using Google.Protobuf;
using Salsa.Contracts.Common;
using Salsa.Contracts.Operations;

namespace Salsa.Hosting;

/// <summary>
/// Limits every service enforces, from configuration section <c>Salsa:Limits</c>, each checked when
/// the service starts (a count below 1 stops the start, naming the key). Requests beyond them get a
/// clear 4xx / gRPC error naming the limit, never a crash.
/// </summary>
public sealed class ServiceLimits
{
    public const string Section = "Salsa:Limits";

    /// <summary>Points in one dataset.</summary>
    [Range(1, int.MaxValue)]
    public int MaxPoints { get; set; } = 2_000_000;

    /// <summary>Coordinates (dense) or bits (binary) per point.</summary>
    [Range(1, int.MaxValue)]
    public int MaxDimensions { get; set; } = 4096;

    /// <summary>Clusters in one request.</summary>
    [Range(1, int.MaxValue)]
    public int MaxClusters { get; set; } = 1000;

    /// <summary>Items an MDS embedding may take (its cost grows as n²).</summary>
    [Range(1, int.MaxValue)]
    public int MaxEmbeddingItems { get; set; } = 10_000;

    /// <summary>
    /// Iterations one loop of a job may be asked for: k-means <c>maxIterations</c> (per restart),
    /// annealing <c>maxIterationsPerTemperature</c>, MDS <c>maxIterations</c>.
    /// </summary>
    [Range(1, int.MaxValue)]
    public int MaxIterations { get; set; } = 100_000;

    /// <summary>k-means restarts (k-means++ seedings) in one request.</summary>
    [Range(1, int.MaxValue)]
    public int MaxRestarts { get; set; } = 1000;

    /// <summary>
    /// Temperatures one annealing may visit: the cooling schedule from the start temperature down to
    /// the minimum by the cooling factor. Cooling stops there even when the schedule depends on the data.
    /// </summary>
    [Range(1, int.MaxValue)]
    public int MaxTemperatures { get; set; } = 100_000;

    /// <summary>Split–merge moves one annealing may try at T = 0.</summary>
    [Range(0, int.MaxValue)]
    public int MaxSplitMergeAttempts { get; set; } = 1000;

    /// <summary>The width or height of a rendered figure, in PNG pixels (a 4096 × 4096 PNG is drawn in 64 MiB).</summary>
    [Range(1, int.MaxValue)]
    public int MaxImageSide { get; set; } = 4096;

    /// <summary>State and county codes one census query may name (the United States have 3,221 counties).</summary>
    [Range(1, int.MaxValue)]
    public int MaxQueryCodes { get; set; } = 10_000;

    /// <summary>
    /// Bytes of one REST request body that carries no file (jobs, queries, runs, workflows): read into
    /// memory before it is checked, so it stays small. An endpoint that takes a file or a dataset
    /// takes up to <c>Salsa:Files:MaxBytes</c> instead (<see cref="Datasets.FileBodies"/>).
    /// </summary>
    [Range(1L, long.MaxValue)]
    public long MaxRequestBytes { get; set; } = 1L << 20;

    /// <summary>Bytes of one gRPC message (uploads come in chunks well under this).</summary>
    [Range(1, int.MaxValue)]
    public int MaxGrpcMessageBytes { get; set; } = 16 << 20;

    /// <summary>Jobs waiting to start, all tenants together; beyond this a start is refused with 429 / RESOURCE_EXHAUSTED.</summary>
    [Range(1, int.MaxValue)]
    public int JobQueueDepth { get; set; } = 64;

    /// <summary>
    /// Jobs one tenant may have waiting; beyond this its start is refused (429) while other tenants'
    /// are still accepted. Waiting jobs start a tenant at a time, in turn.
    /// </summary>
    [Range(1, int.MaxValue)]
    public int MaxQueuedJobsPerTenant { get; set; } = 16;

    /// <summary>Jobs computing at once (each uses every core).</summary>
    [Range(1, int.MaxValue)]
    public int ConcurrentJobs { get; set; } = 1;

    /// <summary>
    /// Of <see cref="ConcurrentJobs"/>, how many one tenant may hold at once (null: all but one, so one
    /// is always free for another tenant's job; at least one).
    /// </summary>
    [Range(1, int.MaxValue)]
    public int? MaxRunningJobsPerTenant { get; set; }

    /// <summary>
    /// Job slots beyond <see cref="ConcurrentJobs"/> that only a tenant running no job may take: while
    /// one tenant's long job holds every slot, another tenant's job starts at once beside it (the
    /// two share the cores) instead of waiting for it to end. 0 turns it off.
    /// </summary>
    [Range(0, 64)]
    public int SpareJobSlots { get; set; } = 1;

    /// <summary>Slots of every kind: <see cref="ConcurrentJobs"/> and <see cref="SpareJobSlots"/>.</summary>
    public int JobSlots => Math.Max(ConcurrentJobs, 1) + Math.Max(SpareJobSlots, 0);

    /// <summary>
    /// How long a job may compute, from its start, unless <see cref="JobTimeLimits"/> names its kind:
    /// past it the job is stopped and ends failed, saying so.
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:00.001", "365.00:00:00")]
    public TimeSpan MaxJobTime { get; set; } = TimeSpan.FromHours(4);

    /// <summary>How long a job of each kind may compute (e.g. <c>Salsa:Limits:JobTimeLimits:annealing = 00:30:00</c>), where it differs from <see cref="MaxJobTime"/>.</summary>
    public Dictionary<string, TimeSpan> JobTimeLimits { get; } = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>The time limit of a job of <paramref name="kind"/>, and the setting it comes from.</summary>
    public (TimeSpan Limit, string Key) JobTimeLimit(string kind) =>
        JobTimeLimits.TryGetValue(kind, out var limit) && limit > TimeSpan.Zero
            ? (limit, $"{Section}:{nameof(JobTimeLimits)}:{kind}")
            : (MaxJobTime, $"{Section}:{nameof(MaxJobTime)}");

    /// <summary>SPMD ranks per job; one per core by default.</summary>
    [Range(1, int.MaxValue)]
    public int Ranks { get; set; } = Environment.ProcessorCount;

    /// <summary>
    /// Streams (server-sent events, gRPC server streams: watches and downloads) one credential may
    /// hold open at once; beyond it, 429 / RESOURCE_EXHAUSTED. The service key is not counted here.
    /// </summary>
    [Range(1, int.MaxValue)]
    public int MaxStreamsPerKey { get; set; } = 20;

    /// <summary>Streams all of one tenant's credentials may hold open at once.</summary>
    [Range(1, int.MaxValue)]
    public int MaxStreamsPerTenant { get; set; } = 100;

    /// <summary>
    /// Streams the process holds open at once, every caller together (null: a quarter of
    /// <see cref="MaxConnections"/>'s value, at most 4,096), so that streams never take the
    /// connections that health checks and short requests need.
    /// </summary>
    [Range(1, int.MaxValue)]
    public int? MaxStreams { get; set; }

    /// <summary>
    /// Connections Kestrel accepts at once (null: the process's open-file limit, <c>ulimit -n</c>
    /// read at start, less a quarter of it and at least 256 kept for the store, files and outgoing
    /// calls). A value above that is lowered to it.
    /// </summary>
    [Range(16, int.MaxValue)]
    public int? MaxConnections { get; set; }

    /// <summary>The connections this process accepts: <see cref="MaxConnections"/> within what its descriptors allow.</summary>
    public int ConnectionLimit(long openFileLimit)
    {
        var reserve = Math.Max(256, openFileLimit / 4);
        var allowed = (int)Math.Clamp(openFileLimit - reserve, 16, int.MaxValue);
        return Math.Min(MaxConnections ?? allowed, allowed);
    }

    /// <summary>The streams this process holds at once: <see cref="MaxStreams"/>, or a quarter of its connections.</summary>
    public int StreamLimit(long openFileLimit) => MaxStreams ?? Math.Clamp(ConnectionLimit(openFileLimit) / 4, 4, 4096);

    /// <summary>The retry hint sent with a refusal.</summary>
    [Range(typeof(TimeSpan), "00:00:00.001", "1.00:00:00")]
    public TimeSpan RetryAfter { get; set; } = TimeSpan.FromSeconds(2);

    /// <summary>
    /// Refuses <paramref name="requested"/> (nothing, when null) beyond <paramref name="limit"/> with
    /// a <see cref="Errors.LimitExceededException"/> that says what was asked for, the limit and its
    /// configuration key (<paramref name="key"/> under <see cref="Section"/>), then <paramref name="hint"/>.
    /// </summary>
    public static void Check(long? requested, long limit, string what, string key, string? hint = null)
    {
        if (requested > limit)
        {
            var message = string.Create(CultureInfo.InvariantCulture, $"{requested:N0} {what} exceed this service's limit of {limit:N0} ({Section}:{key}).");
            throw new Errors.LimitExceededException(hint is null ? message : $"{message} {hint}");
        }
    }

    public void CheckPoints(int count, int dimensionOrBits)
    {
        Check(count, MaxPoints, "points", nameof(MaxPoints));
        Check(dimensionOrBits, MaxDimensions, "dimensions", nameof(MaxDimensions));
    }

    public void CheckClusters(int clusters) => Check(clusters, MaxClusters, "clusters", nameof(MaxClusters));

    /// <summary>The temperatures of a cooling schedule, described by <paramref name="schedule"/>.</summary>
    public void CheckTemperatures(long? temperatures, string schedule) =>
        Check(temperatures, MaxTemperatures, $"temperatures ({schedule})", nameof(MaxTemperatures), "Cool faster (a smaller coolingFactor) or stop warmer (a higher minTemperature).");

    /// <summary>The value of the limit a parameter's rule names (<c>salsa.common.v1.Limit</c>).</summary>
    public double? Of(Limit limit) => Limited(limit)?.Value;

    /// <summary>
    /// Refuses a request that asks for more than a configured limit allows in any field whose rule
    /// names one (<c>salsa.common.v1.parameter</c>'s <c>limit</c>), naming the field and the setting.
    /// </summary>
    public void CheckParameters(IMessage request)
    {
        ArgumentNullException.ThrowIfNull(request);
        foreach (var field in RequestParameters.Fields(request.Descriptor))
        {
            if (Limited(field.Rule.Limit) is not { } limit || !field.IsSet(request))
            {
                continue;
            }

            var value = field.Descriptor.Accessor.GetValue(request);
            var requested = value is System.Collections.ICollection list ? list.Count : Convert.ToInt64(value, CultureInfo.InvariantCulture);
            Check(requested, limit.Value, limit.What == field.Name ? limit.What : $"{limit.What} ({field.Name})", limit.Key);
        }
    }

    private (long Value, string What, string Key)? Limited(Limit limit) => limit switch
    {
        Limit.Clusters => (MaxClusters, "clusters", nameof(MaxClusters)),
        Limit.Iterations => (MaxIterations, "iterations", nameof(MaxIterations)),
        Limit.Restarts => (MaxRestarts, "restarts", nameof(MaxRestarts)),
        Limit.SplitMergeAttempts => (MaxSplitMergeAttempts, "split–merge attempts", nameof(MaxSplitMergeAttempts)),
        Limit.EmbeddingItems => (MaxEmbeddingItems, "items to embed", nameof(MaxEmbeddingItems)),
        Limit.ImageSide => (MaxImageSide, "pixels", nameof(MaxImageSide)),
        _ => null,
    };

    /// <summary>A side of a figure, under its name in the request (<c>width</c> or <c>height</c>).</summary>
    public void CheckImageSide(int? pixels, string parameter) => Check(pixels, MaxImageSide, $"pixels ({parameter})", nameof(MaxImageSide));

    public void CheckQueryCodes(int codes) => Check(codes, MaxQueryCodes, "state and county codes", nameof(MaxQueryCodes));
}
