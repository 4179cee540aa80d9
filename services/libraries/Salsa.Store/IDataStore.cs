namespace Salsa.Store;

/// <summary>What a dataset holds.</summary>
public enum DatasetKind
{
    /// <summary>Points in R^d (<see cref="DatasetContent.Values"/>, row-major), with weights.</summary>
    Dense = 1,

    /// <summary>Bit vectors (<see cref="DatasetContent.Words"/>, little-endian 64-bit words), with weights.</summary>
    Binary = 2,

    /// <summary>Census block groups: Values = (latitude, longitude) pairs, Weights = population, Labels = GEOIDs.</summary>
    Census = 3,

    /// <summary>Compounds: Labels = ids, Texts = SMILES; fingerprints live in derived Binary datasets.</summary>
    Compounds = 4,
}

/// <summary>A dataset's description (everything but its points).</summary>
public sealed record DatasetInfo
{
    public required Guid Id { get; init; }

    public required string Name { get; init; }

    public required DatasetKind Kind { get; init; }

    public required int Count { get; init; }

    /// <summary>Coordinates per point (Dense, Census); 0 otherwise.</summary>
    public int Dimension { get; init; }

    /// <summary>Bits per point (Binary); 0 otherwise.</summary>
    public int Bits { get; init; }

    /// <summary>Named fingerprint type of a Binary dataset, e.g. <c>rdkit-ecfp4-1024</c>.</summary>
    public string? FingerprintType { get; init; }

    public double TotalWeight { get; init; }

    public required DateTimeOffset Created { get; init; }

    /// <summary>Where it came from: a file, an upload, a query of another dataset.</summary>
    public string Source { get; init; } = "";

    public IReadOnlyDictionary<string, string> Metadata { get; init; } = new Dictionary<string, string>();

    /// <summary>The tenant that owns it (<see cref="Tenants"/>).</summary>
    public string Tenant { get; init; } = Tenants.Local;

    /// <summary>
    /// Bytes of its points as stored and counted by <see cref="StorageQuota"/>: vectors, 8 per
    /// weight, labels and texts in UTF-8. Set by the store; what a caller gives is ignored.
    /// </summary>
    public long Bytes { get; init; }
}

/// <summary>A dataset's points. Arrays are as described by <see cref="DatasetKind"/>; unused ones are null.</summary>
public sealed record DatasetContent
{
    public double[]? Values { get; init; }

    public ulong[]? Words { get; init; }

    /// <summary>One weight per point (required, may be all 1).</summary>
    public required double[] Weights { get; init; }

    /// <summary>One label per point (ids), or null.</summary>
    public string[]? Labels { get; init; }

    /// <summary>One text per point (e.g. SMILES), or null.</summary>
    public string[]? Texts { get; init; }
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
}

/// <summary>
/// Which jobs <see cref="IDataStore.QueryJobsAsync"/> selects (a null filter selects any) and which
/// page of them, newest first: <see cref="Offset"/> skipped, at most <see cref="Limit"/> returned.
/// </summary>
public sealed record JobQuery
{
    public string? Service { get; init; }

    public string? Tenant { get; init; }

    /// <summary>What the job does; for the gateway's runs, the workflow's name.</summary>
    public string? Kind { get; init; }

    public JobState? State { get; init; }

    /// <summary>Created at or after.</summary>
    public DateTimeOffset? CreatedFrom { get; init; }

    /// <summary>Created before.</summary>
    public DateTimeOffset? CreatedBefore { get; init; }

    public int Offset { get; init; }

    public int Limit { get; init; } = 100;
}

/// <summary>A page of a <see cref="JobQuery"/>'s jobs and how many the query selects in all.</summary>
public sealed record JobPage(IReadOnlyList<JobRecord> Jobs, int Total);

/// <summary>A named blob a job produced (assignments, a map, GeoJSON).</summary>
public sealed record Artifact(string Name, string ContentType, byte[] Data);

/// <summary>
/// The store every service shares. Implementations: <c>SqliteDataStore</c> (embedded default) and
/// <c>PostgresDataStore</c> (Npgsql, binary COPY for points). Both pass the same contract tests.
/// All methods are safe to call concurrently; a missing id gives null (never an exception).
/// </summary>
public interface IDataStore : IAsyncDisposable
{
    /// <summary>Creates the schema when absent. Called once at start-up.</summary>
    Task InitializeAsync(CancellationToken cancellationToken = default);

    /// <summary>
    /// What each tenant may keep (<see cref="StorageQuota"/>), or null when unbounded. A dataset
    /// that would take its tenant past it is refused with <see cref="QuotaExceededException"/> and
    /// nothing of it stays; the check and the dataset's becoming visible are one step, so tenants'
    /// imports racing each other cannot pass it together.
    /// </summary>
    StorageQuota? Quota { get; }

    /// <summary>What <paramref name="tenant"/> keeps now: its finished datasets and their <see cref="DatasetInfo.Bytes"/>.</summary>
    Task<StorageUsage> GetUsageAsync(string tenant, CancellationToken cancellationToken = default);

    /// <summary>Stores a dataset atomically (all points or nothing) and returns its info.</summary>
    Task<DatasetInfo> CreateDatasetAsync(DatasetInfo info, DatasetContent content, CancellationToken cancellationToken = default);

    /// <summary>
    /// Stores a dataset whose points arrive in parts — a generator, a file larger than memory — and
    /// returns its info: each part the next rows (a <see cref="DatasetContent"/> of its own length),
    /// checked as it arrives, so memory holds one part whatever the size. <paramref name="info"/>'s
    /// Count is the rows promised; Labels and Texts are in every part or in none. The dataset is
    /// seen by no read, list or delete until its last part is in; a part that fails its checks, a
    /// row count other than promised, a cancellation or any other failure removes all it wrote.
    /// SQLite writes each part in a transaction of its own (the file's one writer is not held for
    /// the whole import); PostgreSQL streams every part into one binary COPY.
    /// </summary>
    Task<DatasetInfo> ImportDatasetAsync(DatasetInfo info, IAsyncEnumerable<DatasetContent> parts, CancellationToken cancellationToken = default);

    Task<DatasetInfo?> GetDatasetAsync(Guid id, CancellationToken cancellationToken = default);

    Task<DatasetContent?> ReadDatasetAsync(Guid id, CancellationToken cancellationToken = default);

    /// <summary>
    /// Rows <c>[start, start + count)</c> of a dataset, as <see cref="ReadDatasetAsync"/> gives the
    /// whole (vectors, weights, labels, texts; row <c>start</c> first), read by an index range: a
    /// partition of the grid loads its own rows, never the dataset. Null for an unknown id; a range
    /// outside the dataset's rows is an <see cref="ArgumentOutOfRangeException"/>.
    /// </summary>
    Task<DatasetContent?> ReadDatasetRowsAsync(Guid id, int start, int count, CancellationToken cancellationToken = default);

    /// <summary>Newest first; every tenant's when <paramref name="tenant"/> is null.</summary>
    Task<IReadOnlyList<DatasetInfo>> ListDatasetsAsync(string? tenant, int limit = 100, CancellationToken cancellationToken = default);

    /// <summary>True when it existed.</summary>
    Task<bool> DeleteDatasetAsync(Guid id, CancellationToken cancellationToken = default);

    /// <summary>
    /// A queued or running job or run that uses the dataset — it names it as its dataset, or in its
    /// parameters or (a run's) results so far — or null when none does. The oldest such is returned.
    /// </summary>
    Task<JobRecord?> FindDatasetUserAsync(Guid id, CancellationToken cancellationToken = default);

    Task InsertJobAsync(JobRecord job, CancellationToken cancellationToken = default);

    /// <summary>Replaces the stored record with this one (same id).</summary>
    Task UpdateJobAsync(JobRecord job, CancellationToken cancellationToken = default);

    Task<JobRecord?> GetJobAsync(Guid id, CancellationToken cancellationToken = default);

    /// <summary>Newest first; all services when <paramref name="service"/> is null, every tenant's when <paramref name="tenant"/> is null.</summary>
    Task<IReadOnlyList<JobRecord>> ListJobsAsync(string? service, string? tenant, int limit = 100, CancellationToken cancellationToken = default);

    /// <summary>A page of the jobs <paramref name="query"/> selects, newest first, with how many it selects in all.</summary>
    Task<JobPage> QueryJobsAsync(JobQuery query, CancellationToken cancellationToken = default);

    /// <summary>
    /// Marks every Queued or Running job of <paramref name="service"/> as Interrupted with
    /// <paramref name="reason"/> (start-up after a stop); returns how many.
    /// </summary>
    Task<int> MarkInterruptedAsync(string service, string reason, CancellationToken cancellationToken = default);

    /// <summary>Stores or replaces an artifact of a job.</summary>
    Task PutArtifactAsync(Guid jobId, Artifact artifact, CancellationToken cancellationToken = default);

    Task<Artifact?> GetArtifactAsync(Guid jobId, string name, CancellationToken cancellationToken = default);

    /// <summary>Names, content types and sizes (no data).</summary>
    Task<IReadOnlyList<(string Name, string ContentType, long Size)>> ListArtifactsAsync(Guid jobId, CancellationToken cancellationToken = default);

    /// <summary>
    /// Stores a new API key; a duplicate id is an <see cref="InvalidOperationException"/>, and a key
    /// for a tenant that has <paramref name="maxLiveKeys"/> unrevoked keys already a
    /// <see cref="QuotaExceededException"/> (counted and inserted in one step).
    /// </summary>
    Task InsertApiKeyAsync(ApiKeyRecord key, int maxLiveKeys, CancellationToken cancellationToken = default);

    /// <summary>The key with this id, revoked or not; null when unknown.</summary>
    Task<ApiKeyRecord?> GetApiKeyAsync(string id, CancellationToken cancellationToken = default);

    /// <summary>Keys oldest first, revoked ones too; every tenant's when <paramref name="tenant"/> is null.</summary>
    Task<IReadOnlyList<ApiKeyRecord>> ListApiKeysAsync(string? tenant, CancellationToken cancellationToken = default);

    /// <summary>Revokes a key at <paramref name="revoked"/>; true when it existed and was not revoked yet.</summary>
    Task<bool> RevokeApiKeyAsync(string id, DateTimeOffset revoked, CancellationToken cancellationToken = default);
}
