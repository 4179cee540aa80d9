namespace Salsa.Store;

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

    /// <summary>Gives a dataset a new name (nothing else of it changes); true when it existed.</summary>
    Task<bool> RenameDatasetAsync(Guid id, string name, CancellationToken cancellationToken = default);

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

    /// <summary>Names, content types, sizes and SHA-256s (no data), by name.</summary>
    Task<IReadOnlyList<ArtifactEntry>> ListArtifactsAsync(Guid jobId, CancellationToken cancellationToken = default);

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
