using System.Data;
using Microsoft.Extensions.Logging;
using Npgsql;
using NpgsqlTypes;
using Polly;
using Polly.Retry;

namespace Salsa.Store;

/// <summary>
/// The shared store on PostgreSQL, through one <see cref="NpgsqlDataSource"/> (so Npgsql's own
/// <c>Npgsql</c> traces and metrics cover every call). Tables live in the <c>salsa</c> schema;
/// points arrive by binary COPY and leave through an ordinary query (Npgsql reads results in
/// PostgreSQL's binary format); vectors and artifacts are <c>bytea</c>.
/// </summary>
public sealed partial class PostgresDataStore : IDataStore
{
    // Design: the data source owns a thread-safe connection pool; every call rents its own
    // connection and returns it, so calls from any number of threads or processes only meet
    // inside PostgreSQL, which serialises them with row locks and MVCC snapshots. Initialisation
    // from several processes at once is serialised by a transaction-scoped advisory lock (DDL
    // racing DDL on the same names fails in PostgreSQL even with IF NOT EXISTS). No lock is held
    // in this process, so nothing here can deadlock.
    //
    // Reads are asked again when the database is briefly out of reach (a restart, a failover, a
    // name the network's DNS forgot for a moment): a partition re-activated on a survivor while a
    // silo is being replaced must not fail a job over a blip. Writes are not: whether a failed
    // write landed is not known, and their callers decide.

    /// <summary>The advisory lock key for schema creation: "salsa.st" read as a big-endian int64.</summary>
    private const long SchemaLockKey = 0x73616c73612e7374;

    private const string DatasetColumns =
        "id, name, kind, count, dimension, bits, fingerprint_type, total_weight, created, source, metadata::text, tenant, bytes";

    private const string JobColumns =
        "id, service, kind, state, created, started, finished, queue_ms, compute_ms, dataset_id, parameters, progress, result, error, tenant";

    private const string JobParameters = "$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15";

    private const string UniqueViolation = "23505";

    private readonly NpgsqlDataSource _dataSource;
    private readonly TimeProvider _timeProvider;
    private readonly ResiliencePipeline _reads;

    /// <param name="connectionString">An Npgsql connection string (<c>Host=…;Database=…</c>); see <see cref="DataStoreFactory"/> for URIs.</param>
    /// <param name="loggerFactory">Receives Npgsql's own logs.</param>
    /// <param name="timeProvider">The clock for <see cref="MarkInterruptedAsync"/>'s Finished time.</param>
    /// <param name="quota">What each tenant may keep; null for no bound.</param>
    public PostgresDataStore(string connectionString, ILoggerFactory? loggerFactory = null, TimeProvider? timeProvider = null, StorageQuota? quota = null)
    {
        Quota = quota;
        ArgumentException.ThrowIfNullOrWhiteSpace(connectionString);
        PointVectors.EnsureLittleEndian();
        var builder = new NpgsqlDataSourceBuilder(connectionString) { Name = "salsa-store" };
        if (loggerFactory is not null)
        {
            builder.UseLoggerFactory(loggerFactory);
        }

        var settings = builder.ConnectionStringBuilder;
        Location = $"{settings.Host}:{settings.Port}/{settings.Database}";
        _dataSource = builder.Build();
        _timeProvider = timeProvider ?? TimeProvider.System;
        _reads = ReadRetry(loggerFactory?.CreateLogger<PostgresDataStore>());
    }

    /// <summary>
    /// How a read rides out a database that is briefly out of reach: a transient Npgsql failure
    /// (the server refused or dropped the connection, a timeout, a name not resolved) is asked again
    /// with exponential back-off and jitter, 10 times over about half a minute, then surfaces.
    /// </summary>
    private static ResiliencePipeline ReadRetry(ILogger? logger) => new ResiliencePipelineBuilder()
        .AddRetry(new RetryStrategyOptions
        {
            ShouldHandle = new PredicateBuilder().Handle<NpgsqlException>(e => e.IsTransient),
            MaxRetryAttempts = 10,
            BackoffType = DelayBackoffType.Exponential,
            UseJitter = true,
            Delay = TimeSpan.FromMilliseconds(200),
            MaxDelay = TimeSpan.FromSeconds(5),
            OnRetry = retry =>
            {
                if (logger is not null)
                {
                    LogReadRetry(logger, retry.Outcome.Exception?.Message, retry.AttemptNumber + 1, retry.RetryDelay.TotalMilliseconds);
                }

                return ValueTask.CompletedTask;
            },
        })
        .Build();

    private async Task<T> ReadAsync<T>(Func<CancellationToken, Task<T>> read, CancellationToken cancellationToken) =>
        await _reads.ExecuteAsync(static async (read, token) => await read(token), read, cancellationToken);

    [LoggerMessage(Level = LogLevel.Warning, Message = "A store read failed ({Error}); asking again (attempt {Attempt}) in {DelayMs:F0} ms.")]
    private static partial void LogReadRetry(ILogger logger, string? error, int attempt, double delayMs);

    /// <summary>Host, port and database (never the password), for logs.</summary>
    public string Location { get; }

    public async Task InitializeAsync(CancellationToken cancellationToken = default)
    {
        await using var connection = await _dataSource.OpenConnectionAsync(cancellationToken);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken);
        await using (var gate = new NpgsqlCommand($"SELECT pg_advisory_xact_lock({SchemaLockKey})", connection, transaction))
        {
            await gate.ExecuteNonQueryAsync(cancellationToken);
        }

        // The schema's DDL runs only for a database older than this build: ALTER TABLE takes its
        // table's exclusive lock even when it changes nothing, and would wait behind any long
        // transaction (an import's COPY) — a service starting must not.
        int? found = null;
        await using (var version = new NpgsqlCommand("SELECT CASE WHEN to_regclass('salsa.schema_version') IS NULL THEN -1 ELSE 0 END", connection, transaction))
        {
            if ((int)(await version.ExecuteScalarAsync(cancellationToken))! == 0)
            {
                await using var current = new NpgsqlCommand("SELECT max(version) FROM salsa.schema_version", connection, transaction);
                found = await current.ExecuteScalarAsync(cancellationToken) as int?;
            }
        }

        if (found > StoreSchema.Version)
        {
            throw new NotSupportedException($"The database at {Location} has schema version {found}; this build of Salsa.Store knows versions up to {StoreSchema.Version}.");
        }

        if (found != StoreSchema.Version)
        {
            // Without parameters Npgsql splits the text into its statements; each is idempotent, so
            // they create a new database and migrate an older one alike.
            await using (var create = new NpgsqlCommand(StoreSchema.Postgres, connection, transaction))
            {
                await create.ExecuteNonQueryAsync(cancellationToken);
            }

            await using var record = new NpgsqlCommand(
                $"DELETE FROM salsa.schema_version; INSERT INTO salsa.schema_version (version) VALUES ({StoreSchema.Version})", connection, transaction);
            await record.ExecuteNonQueryAsync(cancellationToken);
        }

        await transaction.CommitAsync(cancellationToken);
    }

    public Task<DatasetInfo> CreateDatasetAsync(DatasetInfo info, DatasetContent content, CancellationToken cancellationToken = default)
    {
        StoreValidation.ValidateDataset(info, content);
        return ImportDatasetAsync(info, new[] { content }.ToAsyncEnumerable(), cancellationToken);
    }

    public async Task<DatasetInfo> ImportDatasetAsync(DatasetInfo info, IAsyncEnumerable<DatasetContent> parts, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(parts);
        var stored = StoreValidation.ValidateInfo(info);
        await using var connection = await _dataSource.OpenConnectionAsync(cancellationToken);
        // One transaction for the row and every point: until it commits no one sees the dataset, and
        // disposing it uncommitted (any failure below) leaves nothing.
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken);
        var check = new StoreValidation.ImportCheck(stored);
        NpgsqlBinaryImporter? importer = null;
        try
        {
            await foreach (var part in parts.WithCancellation(cancellationToken).ConfigureAwait(false))
            {
                var from = check.Next(part);
                if (importer is null)
                {
                    await InsertDatasetAsync(connection, transaction, stored, part, cancellationToken);
                    importer = await BeginPointsAsync(connection, stored, part, cancellationToken);
                }

                await CopyPointsAsync(importer, stored, part, from, cancellationToken);
            }

            check.Finish();
            if (importer is null)
            {
                await InsertDatasetAsync(connection, transaction, stored, new DatasetContent { Weights = [] }, cancellationToken);
            }
            else
            {
                // Without Complete, disposing the importer cancels the COPY.
                await importer.CompleteAsync(cancellationToken);
            }
        }
        finally
        {
            if (importer is not null)
            {
                await importer.DisposeAsync();
            }
        }

        var total = check.TotalWeight;
        stored = stored with { TotalWeight = total, Bytes = check.Bytes };
        if (Quota is { } quota)
        {
            // One tenant's imports complete one at a time from here to the commit (a lock of the
            // transaction, keyed by the tenant), so two cannot both find the room one leaves.
            await LockTenantAsync(connection, transaction, "salsa.quota", stored.Tenant, cancellationToken);

            quota.Check(stored.Tenant, await UsageAsync(connection, transaction, stored.Tenant, excluding: stored.Id, cancellationToken), stored.Bytes);
        }

        await using (var complete = new NpgsqlCommand("UPDATE salsa.datasets SET total_weight = $2, bytes = $3 WHERE id = $1", connection, transaction))
        {
            complete.Parameters.Add(new NpgsqlParameter<Guid> { TypedValue = stored.Id });
            complete.Parameters.Add(new NpgsqlParameter<double> { TypedValue = total });
            complete.Parameters.Add(new NpgsqlParameter<long> { TypedValue = stored.Bytes });
            await complete.ExecuteNonQueryAsync(cancellationToken);
        }

        await transaction.CommitAsync(cancellationToken);
        return stored;
    }

    public StorageQuota? Quota { get; }

    /// <summary>Takes the transaction's advisory lock on <paramref name="what"/> of <paramref name="tenant"/>: the tenant's other such transactions wait for its end.</summary>
    private static async Task LockTenantAsync(NpgsqlConnection connection, NpgsqlTransaction transaction, string what, string tenant, CancellationToken cancellationToken)
    {
        await using var gate = new NpgsqlCommand("SELECT pg_advisory_xact_lock(hashtextextended($1 || ' ' || $2, 0))", connection, transaction);
        gate.Parameters.Add(new NpgsqlParameter<string> { TypedValue = what });
        gate.Parameters.Add(new NpgsqlParameter<string> { TypedValue = tenant });
        await gate.ExecuteNonQueryAsync(cancellationToken);
    }

    public Task<StorageUsage> GetUsageAsync(string tenant, CancellationToken cancellationToken = default)
    {
        Tenants.Require(tenant);
        return ReadAsync(async cancellationToken =>
        {
            await using var connection = await _dataSource.OpenConnectionAsync(cancellationToken);
            return await UsageAsync(connection, null, tenant, excluding: null, cancellationToken);
        }, cancellationToken);
    }

    private static async Task<StorageUsage> UsageAsync(NpgsqlConnection connection, NpgsqlTransaction? transaction, string tenant, Guid? excluding, CancellationToken cancellationToken)
    {
        await using var usage = new NpgsqlCommand("SELECT count(*)::integer, COALESCE(sum(bytes), 0)::bigint FROM salsa.datasets WHERE tenant = $1 AND id IS DISTINCT FROM $2", connection, transaction);
        usage.Parameters.Add(new NpgsqlParameter<string> { TypedValue = tenant });
        usage.Parameters.Add(new NpgsqlParameter { Value = (object?)excluding ?? DBNull.Value, NpgsqlDbType = NpgsqlDbType.Uuid });
        await using var reader = await usage.ExecuteReaderAsync(cancellationToken);
        await reader.ReadAsync(cancellationToken);
        return new StorageUsage(reader.GetInt32(0), reader.GetInt64(1));
    }

    private static async Task InsertDatasetAsync(NpgsqlConnection connection, NpgsqlTransaction transaction, DatasetInfo stored, DatasetContent first, CancellationToken cancellationToken)
    {
        await using var insert = new NpgsqlCommand($"""
            INSERT INTO salsa.datasets (id, name, kind, count, dimension, bits, fingerprint_type, total_weight, created, source, metadata, has_labels, has_texts, tenant)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
            """, connection, transaction);
        var p = insert.Parameters;
        p.Add(new NpgsqlParameter<Guid> { TypedValue = stored.Id });
        p.Add(new NpgsqlParameter<string> { TypedValue = stored.Name });
        p.Add(new NpgsqlParameter<int> { TypedValue = (int)stored.Kind });
        p.Add(new NpgsqlParameter<int> { TypedValue = stored.Count });
        p.Add(new NpgsqlParameter<int> { TypedValue = stored.Dimension });
        p.Add(new NpgsqlParameter<int> { TypedValue = stored.Bits });
        p.Add(new NpgsqlParameter { Value = (object?)stored.FingerprintType ?? DBNull.Value, NpgsqlDbType = NpgsqlDbType.Text });
        p.Add(new NpgsqlParameter<double> { TypedValue = stored.TotalWeight });
        p.Add(new NpgsqlParameter<DateTimeOffset> { TypedValue = stored.Created });
        p.Add(new NpgsqlParameter<string> { TypedValue = stored.Source });
        p.Add(new NpgsqlParameter<string> { TypedValue = MetadataJson.Serialize(stored.Metadata), NpgsqlDbType = NpgsqlDbType.Jsonb });
        p.Add(new NpgsqlParameter<bool> { TypedValue = first.Labels is not null });
        p.Add(new NpgsqlParameter<bool> { TypedValue = first.Texts is not null });
        p.Add(new NpgsqlParameter<string> { TypedValue = stored.Tenant });
        try
        {
            await insert.ExecuteNonQueryAsync(cancellationToken);
        }
        catch (PostgresException e) when (e.SqlState == UniqueViolation)
        {
            throw new InvalidOperationException($"A dataset with id {stored.Id} already exists.", e);
        }
    }

    /// <summary>Starts the COPY of a dataset's points: only the columns its parts carry travel, the others default to NULL.</summary>
    private static Task<NpgsqlBinaryImporter> BeginPointsAsync(NpgsqlConnection connection, DatasetInfo info, DatasetContent first, CancellationToken cancellationToken)
    {
        var columns = new List<string> { "dataset_id", "idx", "weight" };
        if (StoreValidation.VectorBytes(info.Kind, info.Dimension, info.Bits) > 0)
        {
            columns.Add("vector");
        }

        if (first.Labels is not null)
        {
            columns.Add("label");
        }

        if (first.Texts is not null)
        {
            columns.Add("text");
        }

        return connection.BeginBinaryImportAsync($"COPY salsa.dataset_points ({string.Join(", ", columns)}) FROM STDIN (FORMAT BINARY)", cancellationToken);
    }

    private static async Task CopyPointsAsync(NpgsqlBinaryImporter importer, DatasetInfo info, DatasetContent part, int first, CancellationToken cancellationToken)
    {
        var vectorBytes = StoreValidation.VectorBytes(info.Kind, info.Dimension, info.Bits);
        var all = PointVectors.ToBytes(part);
        for (var i = 0; i < part.Weights.Length; i++)
        {
            await importer.StartRowAsync(cancellationToken);
            await importer.WriteAsync(info.Id, NpgsqlDbType.Uuid, cancellationToken);
            await importer.WriteAsync(first + i, NpgsqlDbType.Integer, cancellationToken);
            await importer.WriteAsync(part.Weights[i], NpgsqlDbType.Double, cancellationToken);
            if (all is not null)
            {
                await importer.WriteAsync(new ArraySegment<byte>(all, i * vectorBytes, vectorBytes), NpgsqlDbType.Bytea, cancellationToken);
            }

            if (part.Labels is { } labels)
            {
                await importer.WriteAsync(labels[i], NpgsqlDbType.Text, cancellationToken);
            }

            if (part.Texts is { } texts)
            {
                await importer.WriteAsync(texts[i], NpgsqlDbType.Text, cancellationToken);
            }
        }
    }

    public Task<DatasetInfo?> GetDatasetAsync(Guid id, CancellationToken cancellationToken = default) =>
        ReadAsync(async cancellationToken =>
        {
            await using var select = _dataSource.CreateCommand($"SELECT {DatasetColumns} FROM salsa.datasets WHERE id = $1");
            select.Parameters.Add(new NpgsqlParameter<Guid> { TypedValue = id });
            await using var reader = await select.ExecuteReaderAsync(cancellationToken);
            return await reader.ReadAsync(cancellationToken) ? ReadDatasetInfo(reader) : null;
        }, cancellationToken);

    public Task<DatasetContent?> ReadDatasetAsync(Guid id, CancellationToken cancellationToken = default) =>
        ReadRowsAsync(id, null, cancellationToken);

    public Task<DatasetContent?> ReadDatasetRowsAsync(Guid id, int start, int count, CancellationToken cancellationToken = default)
    {
        StoreValidation.CheckRange(start, count, int.MaxValue);
        return ReadRowsAsync(id, (start, count), cancellationToken);
    }

    // The whole dataset, or a range of its rows (a range scan of the points' primary key).
    private Task<DatasetContent?> ReadRowsAsync(Guid id, (int Start, int Count)? range, CancellationToken cancellationToken) =>
        ReadAsync(async cancellationToken =>
        {
            await using var connection = await _dataSource.OpenConnectionAsync(cancellationToken);

            // One snapshot for the dataset row and its points, so a concurrent delete cannot split them.
            await using var transaction = await connection.BeginTransactionAsync(IsolationLevel.RepeatableRead, cancellationToken);
            DatasetContentBuilder builder;
            await using (var select = new NpgsqlCommand("SELECT kind, count, dimension, bits, has_labels, has_texts FROM salsa.datasets WHERE id = $1", connection, transaction))
            {
                select.Parameters.Add(new NpgsqlParameter<Guid> { TypedValue = id });
                await using var row = await select.ExecuteReaderAsync(cancellationToken);
                if (!await row.ReadAsync(cancellationToken))
                {
                    return null;
                }

                var rows = row.GetInt32(1);
                var (start, count) = range ?? (0, rows);
                StoreValidation.CheckRange(start, count, rows);
                builder = new DatasetContentBuilder((DatasetKind)row.GetInt32(0), count, row.GetInt32(2), row.GetInt32(3), row.GetBoolean(4), row.GetBoolean(5), start);
            }

            await using (var points = new NpgsqlCommand(
                "SELECT idx, vector, weight, label, text FROM salsa.dataset_points WHERE dataset_id = $1 AND idx >= $2 AND idx < $3 ORDER BY idx", connection, transaction))
            {
                points.Parameters.Add(new NpgsqlParameter<Guid> { TypedValue = id });
                points.Parameters.Add(new NpgsqlParameter<int> { TypedValue = builder.First });
                points.Parameters.Add(new NpgsqlParameter<long> { TypedValue = (long)builder.First + builder.Count });

                // Rows are small (a vector, a weight, an id and a SMILES), so the default row-buffered
                // mode suits; Npgsql receives every column in PostgreSQL's binary format.
                await using var reader = await points.ExecuteReaderAsync(cancellationToken);
                var buffer = new byte[builder.VectorBytes];
                while (await reader.ReadAsync(cancellationToken))
                {
                    var index = reader.GetInt32(0);
                    if (builder.VectorBytes > 0)
                    {
                        var length = reader.IsDBNull(1) ? -1 : reader.GetBytes(1, 0, null, 0, 0);
                        if (length != buffer.Length)
                        {
                            throw new InvalidDataException($"Point {index} of dataset {id} has a {length}-byte vector; {buffer.Length} expected.");
                        }

                        reader.GetBytes(1, 0, buffer, 0, buffer.Length);
                        buffer.CopyTo(builder.NextVector);
                    }

                    var weight = reader.GetDouble(2);
                    var label = reader.IsDBNull(3) ? null : reader.GetString(3);
                    var text = reader.IsDBNull(4) ? null : reader.GetString(4);
                    builder.Add(index, weight, label, text);
                }
            }

            await transaction.CommitAsync(cancellationToken);
            return builder.Build();
        }, cancellationToken);

    public Task<IReadOnlyList<DatasetInfo>> ListDatasetsAsync(string? tenant, int limit = 100, CancellationToken cancellationToken = default) =>
        ReadAsync<IReadOnlyList<DatasetInfo>>(async cancellationToken =>
        {
            ArgumentOutOfRangeException.ThrowIfNegative(limit);
            await using var select = _dataSource.CreateCommand(
                $"SELECT {DatasetColumns} FROM salsa.datasets WHERE ($2::text IS NULL OR tenant = $2) ORDER BY created DESC, seq DESC LIMIT $1");
            select.Parameters.Add(new NpgsqlParameter<int> { TypedValue = limit });
            select.Parameters.Add(Nullable(tenant, NpgsqlDbType.Text));
            await using var reader = await select.ExecuteReaderAsync(cancellationToken);
            var list = new List<DatasetInfo>();
            while (await reader.ReadAsync(cancellationToken))
            {
                list.Add(ReadDatasetInfo(reader));
            }

            return list;
        }, cancellationToken);

    public async Task<bool> DeleteDatasetAsync(Guid id, CancellationToken cancellationToken = default)
    {
        // Points go in the same transaction as their dataset row (no foreign key: COPY would run
        // a referential check per point, and only Create and Delete ever touch points).
        await using var connection = await _dataSource.OpenConnectionAsync(cancellationToken);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken);
        await using var batch = new NpgsqlBatch(connection, transaction)
        {
            BatchCommands =
            {
                new NpgsqlBatchCommand("DELETE FROM salsa.dataset_points WHERE dataset_id = $1") { Parameters = { new NpgsqlParameter<Guid> { TypedValue = id } } },
                new NpgsqlBatchCommand("DELETE FROM salsa.datasets WHERE id = $1") { Parameters = { new NpgsqlParameter<Guid> { TypedValue = id } } },
            },
        };
        await batch.ExecuteNonQueryAsync(cancellationToken);
        var deleted = batch.BatchCommands[1].RecordsAffected > 0;
        await transaction.CommitAsync(cancellationToken);
        return deleted;
    }

    public async Task InsertJobAsync(JobRecord job, CancellationToken cancellationToken = default)
    {
        StoreValidation.ValidateJob(job);
        await using var insert = _dataSource.CreateCommand($"INSERT INTO salsa.jobs ({JobColumns}) VALUES ({JobParameters})");
        BindJob(insert, job);
        try
        {
            await insert.ExecuteNonQueryAsync(cancellationToken);
        }
        catch (PostgresException e) when (e.SqlState == UniqueViolation)
        {
            throw new InvalidOperationException($"A job with id {job.Id} already exists.", e);
        }
    }

    public async Task UpdateJobAsync(JobRecord job, CancellationToken cancellationToken = default)
    {
        StoreValidation.ValidateJob(job);

        // An upsert: afterwards the stored record is this one whether or not it existed.
        await using var upsert = _dataSource.CreateCommand($"""
            INSERT INTO salsa.jobs ({JobColumns}) VALUES ({JobParameters})
            ON CONFLICT (id) DO UPDATE SET
                service = EXCLUDED.service, kind = EXCLUDED.kind, state = EXCLUDED.state,
                created = EXCLUDED.created, started = EXCLUDED.started, finished = EXCLUDED.finished,
                queue_ms = EXCLUDED.queue_ms, compute_ms = EXCLUDED.compute_ms, dataset_id = EXCLUDED.dataset_id,
                parameters = EXCLUDED.parameters, progress = EXCLUDED.progress, result = EXCLUDED.result, error = EXCLUDED.error,
                tenant = EXCLUDED.tenant
            """);
        BindJob(upsert, job);
        await upsert.ExecuteNonQueryAsync(cancellationToken);
    }

    public Task<JobRecord?> GetJobAsync(Guid id, CancellationToken cancellationToken = default) =>
        ReadAsync(async cancellationToken =>
        {
            await using var select = _dataSource.CreateCommand($"SELECT {JobColumns} FROM salsa.jobs WHERE id = $1");
            select.Parameters.Add(new NpgsqlParameter<Guid> { TypedValue = id });
            await using var reader = await select.ExecuteReaderAsync(cancellationToken);
            return await reader.ReadAsync(cancellationToken) ? ReadJob(reader) : null;
        }, cancellationToken);

    public Task<JobRecord?> FindDatasetUserAsync(Guid id, CancellationToken cancellationToken = default) =>
        ReadAsync(async cancellationToken =>
        {
            await using var select = _dataSource.CreateCommand($"""
                SELECT {JobColumns} FROM salsa.jobs
                WHERE state IN ($2, $3) AND (dataset_id = $1 OR strpos(parameters, $4) > 0 OR strpos(coalesce(result, ''), $4) > 0)
                ORDER BY created, seq LIMIT 1
                """);
            select.Parameters.Add(new NpgsqlParameter<Guid> { TypedValue = id });
            select.Parameters.Add(new NpgsqlParameter<int> { TypedValue = (int)JobState.Queued });
            select.Parameters.Add(new NpgsqlParameter<int> { TypedValue = (int)JobState.Running });
            select.Parameters.Add(new NpgsqlParameter<string> { TypedValue = id.ToString("D") });
            await using var reader = await select.ExecuteReaderAsync(cancellationToken);
            return await reader.ReadAsync(cancellationToken) ? ReadJob(reader) : null;
        }, cancellationToken);

    public async Task<IReadOnlyList<JobRecord>> ListJobsAsync(string? service, string? tenant, int limit = 100, CancellationToken cancellationToken = default) =>
        (await QueryJobsAsync(new JobQuery { Service = service, Tenant = tenant, Limit = limit }, cancellationToken)).Jobs;

    public Task<JobPage> QueryJobsAsync(JobQuery query, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(query);
        ArgumentOutOfRangeException.ThrowIfNegative(query.Limit);
        ArgumentOutOfRangeException.ThrowIfNegative(query.Offset);
        const string Where = """
            WHERE ($3::text IS NULL OR service = $3) AND ($4::text IS NULL OR tenant = $4) AND ($5::text IS NULL OR kind = $5)
              AND ($6::int IS NULL OR state = $6) AND ($7::timestamptz IS NULL OR created >= $7) AND ($8::timestamptz IS NULL OR created < $8)
            """;
        return ReadAsync(async cancellationToken =>
        {
            // The total rides on every row (a window over the filtered rows, before the page is cut).
            await using var select = _dataSource.CreateCommand($"SELECT {JobColumns}, count(*) OVER () FROM salsa.jobs {Where} ORDER BY created DESC, seq DESC LIMIT $1 OFFSET $2");
            var p = select.Parameters;
            p.Add(new NpgsqlParameter<int> { TypedValue = query.Limit });
            p.Add(new NpgsqlParameter<int> { TypedValue = query.Offset });
            p.Add(Nullable(query.Service, NpgsqlDbType.Text));
            p.Add(Nullable(query.Tenant, NpgsqlDbType.Text));
            p.Add(Nullable(query.Kind, NpgsqlDbType.Text));
            p.Add(Nullable((int?)query.State, NpgsqlDbType.Integer));
            p.Add(Nullable(query.CreatedFrom is { } from ? StoreTime.Normalize(from) : null, NpgsqlDbType.TimestampTz));
            p.Add(Nullable(query.CreatedBefore is { } before ? StoreTime.Normalize(before) : null, NpgsqlDbType.TimestampTz));
            var list = new List<JobRecord>();
            var total = -1L;
            await using (var reader = await select.ExecuteReaderAsync(cancellationToken))
            {
                while (await reader.ReadAsync(cancellationToken))
                {
                    list.Add(ReadJob(reader));
                    total = reader.GetInt64(15);
                }
            }

            if (total < 0)
            {
                // No row on this page: count alone (the page may lie past the end, or be empty by its limit).
                select.CommandText = $"SELECT count(*) FROM salsa.jobs {Where}";
                total = (long)(await select.ExecuteScalarAsync(cancellationToken))!;
            }

            return new JobPage(list, checked((int)total));
        }, cancellationToken);
    }

    public async Task<int> MarkInterruptedAsync(string service, string reason, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(service);
        ArgumentNullException.ThrowIfNull(reason);
        await using var update = _dataSource.CreateCommand("UPDATE salsa.jobs SET state = $1, finished = $2, error = $3 WHERE service = $4 AND state IN ($5, $6)");
        var p = update.Parameters;
        p.Add(new NpgsqlParameter<int> { TypedValue = (int)JobState.Interrupted });
        p.Add(new NpgsqlParameter<DateTimeOffset> { TypedValue = StoreTime.Normalize(_timeProvider.GetUtcNow()) });
        p.Add(new NpgsqlParameter<string> { TypedValue = reason });
        p.Add(new NpgsqlParameter<string> { TypedValue = service });
        p.Add(new NpgsqlParameter<int> { TypedValue = (int)JobState.Queued });
        p.Add(new NpgsqlParameter<int> { TypedValue = (int)JobState.Running });
        return await update.ExecuteNonQueryAsync(cancellationToken);
    }

    public async Task PutArtifactAsync(Guid jobId, Artifact artifact, CancellationToken cancellationToken = default)
    {
        StoreValidation.ValidateArtifact(artifact);
        await using var upsert = _dataSource.CreateCommand("""
            INSERT INTO salsa.job_artifacts (job_id, name, content_type, data) VALUES ($1, $2, $3, $4)
            ON CONFLICT (job_id, name) DO UPDATE SET content_type = EXCLUDED.content_type, data = EXCLUDED.data
            """);
        upsert.Parameters.Add(new NpgsqlParameter<Guid> { TypedValue = jobId });
        upsert.Parameters.Add(new NpgsqlParameter<string> { TypedValue = artifact.Name });
        upsert.Parameters.Add(new NpgsqlParameter<string> { TypedValue = artifact.ContentType });
        upsert.Parameters.Add(new NpgsqlParameter<byte[]> { TypedValue = artifact.Data, NpgsqlDbType = NpgsqlDbType.Bytea });
        await upsert.ExecuteNonQueryAsync(cancellationToken);
    }

    public Task<Artifact?> GetArtifactAsync(Guid jobId, string name, CancellationToken cancellationToken = default) =>
        ReadAsync(async cancellationToken =>
        {
            ArgumentNullException.ThrowIfNull(name);
            await using var select = _dataSource.CreateCommand("SELECT content_type, data FROM salsa.job_artifacts WHERE job_id = $1 AND name = $2");
            select.Parameters.Add(new NpgsqlParameter<Guid> { TypedValue = jobId });
            select.Parameters.Add(new NpgsqlParameter<string> { TypedValue = name });
            await using var reader = await select.ExecuteReaderAsync(cancellationToken);
            return await reader.ReadAsync(cancellationToken)
                ? new Artifact(name, reader.GetString(0), await reader.GetFieldValueAsync<byte[]>(1, cancellationToken))
                : null;
        }, cancellationToken);

    public Task<IReadOnlyList<(string Name, string ContentType, long Size)>> ListArtifactsAsync(Guid jobId, CancellationToken cancellationToken = default) =>
        ReadAsync<IReadOnlyList<(string Name, string ContentType, long Size)>>(async cancellationToken =>
        {
            // octet_length reads a TOASTed value's size from its header without fetching the data.
            // COLLATE "C" orders names by code point, as SQLite does, whatever the database's locale.
            await using var select = _dataSource.CreateCommand(
                "SELECT name, content_type, octet_length(data)::bigint FROM salsa.job_artifacts WHERE job_id = $1 ORDER BY name COLLATE \"C\"");
            select.Parameters.Add(new NpgsqlParameter<Guid> { TypedValue = jobId });
            await using var reader = await select.ExecuteReaderAsync(cancellationToken);
            var list = new List<(string, string, long)>();
            while (await reader.ReadAsync(cancellationToken))
            {
                list.Add((reader.GetString(0), reader.GetString(1), reader.GetInt64(2)));
            }

            return list;
        }, cancellationToken);

    public async Task InsertApiKeyAsync(ApiKeyRecord key, int maxLiveKeys, CancellationToken cancellationToken = default)
    {
        StoreValidation.ValidateApiKey(key);
        await using var connection = await _dataSource.OpenConnectionAsync(cancellationToken);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken);
        // One tenant's creates take turns from the count to the commit (a lock of the transaction).
        await LockTenantAsync(connection, transaction, "salsa.keys", key.Tenant, cancellationToken);
        await using (var live = new NpgsqlCommand("SELECT count(*)::integer FROM salsa.api_keys WHERE tenant = $1 AND revoked IS NULL", connection, transaction))
        {
            live.Parameters.Add(new NpgsqlParameter<string> { TypedValue = key.Tenant });
            StoreValidation.RequireKeyRoom(key.Tenant, (int)(await live.ExecuteScalarAsync(cancellationToken))!, maxLiveKeys);
        }

        await using var insert = new NpgsqlCommand($"INSERT INTO salsa.api_keys ({ApiKeyColumns}) VALUES ($1, $2, $3, $4, $5, $6, $7)", connection, transaction);
        var p = insert.Parameters;
        p.Add(new NpgsqlParameter<string> { TypedValue = key.Id });
        p.Add(new NpgsqlParameter<string> { TypedValue = key.Tenant });
        p.Add(new NpgsqlParameter<string> { TypedValue = key.Name });
        p.Add(new NpgsqlParameter<string> { TypedValue = string.Join(' ', key.Scopes) });
        p.Add(new NpgsqlParameter<byte[]> { TypedValue = key.SecretHash, NpgsqlDbType = NpgsqlDbType.Bytea });
        p.Add(new NpgsqlParameter<DateTimeOffset> { TypedValue = StoreTime.Normalize(key.Created) });
        p.Add(Nullable(StoreTime.Normalize(key.Revoked), NpgsqlDbType.TimestampTz));
        try
        {
            await insert.ExecuteNonQueryAsync(cancellationToken);
        }
        catch (PostgresException e) when (e.SqlState == UniqueViolation)
        {
            throw new InvalidOperationException($"An API key with id {key.Id} already exists.", e);
        }

        await transaction.CommitAsync(cancellationToken);
    }

    public Task<ApiKeyRecord?> GetApiKeyAsync(string id, CancellationToken cancellationToken = default) =>
        ReadAsync(async cancellationToken =>
        {
            ArgumentNullException.ThrowIfNull(id);
            await using var select = _dataSource.CreateCommand($"SELECT {ApiKeyColumns} FROM salsa.api_keys WHERE id = $1");
            select.Parameters.Add(new NpgsqlParameter<string> { TypedValue = id });
            await using var reader = await select.ExecuteReaderAsync(cancellationToken);
            return await reader.ReadAsync(cancellationToken) ? await ReadApiKeyAsync(reader, cancellationToken) : null;
        }, cancellationToken);

    public Task<IReadOnlyList<ApiKeyRecord>> ListApiKeysAsync(string? tenant, CancellationToken cancellationToken = default) =>
        ReadAsync<IReadOnlyList<ApiKeyRecord>>(async cancellationToken =>
        {
            await using var select = _dataSource.CreateCommand($"SELECT {ApiKeyColumns} FROM salsa.api_keys WHERE ($1::text IS NULL OR tenant = $1) ORDER BY created, id COLLATE \"C\"");
            select.Parameters.Add(Nullable(tenant, NpgsqlDbType.Text));
            await using var reader = await select.ExecuteReaderAsync(cancellationToken);
            var list = new List<ApiKeyRecord>();
            while (await reader.ReadAsync(cancellationToken))
            {
                list.Add(await ReadApiKeyAsync(reader, cancellationToken));
            }

            return list;
        }, cancellationToken);

    public async Task<bool> RevokeApiKeyAsync(string id, DateTimeOffset revoked, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(id);
        await using var update = _dataSource.CreateCommand("UPDATE salsa.api_keys SET revoked = $2 WHERE id = $1 AND revoked IS NULL");
        update.Parameters.Add(new NpgsqlParameter<string> { TypedValue = id });
        update.Parameters.Add(new NpgsqlParameter<DateTimeOffset> { TypedValue = StoreTime.Normalize(revoked) });
        return await update.ExecuteNonQueryAsync(cancellationToken) > 0;
    }

    private const string ApiKeyColumns = "id, tenant, name, scopes, secret_hash, created, revoked";

    private static async Task<ApiKeyRecord> ReadApiKeyAsync(NpgsqlDataReader reader, CancellationToken cancellationToken) => new()
    {
        Id = reader.GetString(0),
        Tenant = reader.GetString(1),
        Name = reader.GetString(2),
        Scopes = reader.GetString(3).Split(' ', StringSplitOptions.RemoveEmptyEntries),
        SecretHash = await reader.GetFieldValueAsync<byte[]>(4, cancellationToken),
        Created = reader.GetFieldValue<DateTimeOffset>(5),
        Revoked = reader.IsDBNull(6) ? null : reader.GetFieldValue<DateTimeOffset>(6),
    };

    public ValueTask DisposeAsync() => _dataSource.DisposeAsync();

    private static DatasetInfo ReadDatasetInfo(NpgsqlDataReader reader) => new()
    {
        Id = reader.GetGuid(0),
        Name = reader.GetString(1),
        Kind = (DatasetKind)reader.GetInt32(2),
        Count = reader.GetInt32(3),
        Dimension = reader.GetInt32(4),
        Bits = reader.GetInt32(5),
        FingerprintType = reader.IsDBNull(6) ? null : reader.GetString(6),
        TotalWeight = reader.GetDouble(7),
        Created = reader.GetFieldValue<DateTimeOffset>(8),
        Source = reader.GetString(9),
        Metadata = MetadataJson.Deserialize(reader.GetString(10)),
        Tenant = reader.GetString(11),
        Bytes = reader.GetInt64(12),
    };

    private static void BindJob(NpgsqlCommand command, JobRecord job)
    {
        var p = command.Parameters;
        p.Add(new NpgsqlParameter<Guid> { TypedValue = job.Id });
        p.Add(new NpgsqlParameter<string> { TypedValue = job.Service });
        p.Add(new NpgsqlParameter<string> { TypedValue = job.Kind });
        p.Add(new NpgsqlParameter<int> { TypedValue = (int)job.State });
        p.Add(new NpgsqlParameter<DateTimeOffset> { TypedValue = StoreTime.Normalize(job.Created) });
        p.Add(Nullable(StoreTime.Normalize(job.Started), NpgsqlDbType.TimestampTz));
        p.Add(Nullable(StoreTime.Normalize(job.Finished), NpgsqlDbType.TimestampTz));
        p.Add(new NpgsqlParameter<double> { TypedValue = job.QueueMilliseconds });
        p.Add(new NpgsqlParameter<double> { TypedValue = job.ComputeMilliseconds });
        p.Add(Nullable(job.DatasetId, NpgsqlDbType.Uuid));
        p.Add(new NpgsqlParameter<string> { TypedValue = job.ParametersJson });
        p.Add(Nullable(job.ProgressJson, NpgsqlDbType.Text));
        p.Add(Nullable(job.ResultJson, NpgsqlDbType.Text));
        p.Add(Nullable(job.Error, NpgsqlDbType.Text));
        p.Add(new NpgsqlParameter<string> { TypedValue = job.Tenant });
    }

    private static NpgsqlParameter Nullable(object? value, NpgsqlDbType type) => new() { Value = value ?? DBNull.Value, NpgsqlDbType = type };

    private static JobRecord ReadJob(NpgsqlDataReader reader) => new()
    {
        Id = reader.GetGuid(0),
        Service = reader.GetString(1),
        Kind = reader.GetString(2),
        State = (JobState)reader.GetInt32(3),
        Created = reader.GetFieldValue<DateTimeOffset>(4),
        Started = reader.IsDBNull(5) ? null : reader.GetFieldValue<DateTimeOffset>(5),
        Finished = reader.IsDBNull(6) ? null : reader.GetFieldValue<DateTimeOffset>(6),
        QueueMilliseconds = reader.GetDouble(7),
        ComputeMilliseconds = reader.GetDouble(8),
        DatasetId = reader.IsDBNull(9) ? null : reader.GetGuid(9),
        ParametersJson = reader.GetString(10),
        ProgressJson = reader.IsDBNull(11) ? null : reader.GetString(11),
        ResultJson = reader.IsDBNull(12) ? null : reader.GetString(12),
        Error = reader.IsDBNull(13) ? null : reader.GetString(13),
        Tenant = reader.GetString(14),
    };
}
