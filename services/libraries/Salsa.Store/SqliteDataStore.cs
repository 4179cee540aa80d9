using System.Data;
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Microsoft.Data.Sqlite;
using SQLitePCL;

namespace Salsa.Store;

/// <summary>
/// The embedded store: one SQLite file in WAL mode, shared by every thread of this process and by
/// other processes on the same machine. Points are rows of <c>dataset_points</c> (a WITHOUT ROWID
/// table clustered on dataset and index), each point's vector one little-endian BLOB, inserted
/// through one prepared statement, a transaction per part of an import.
/// </summary>
public sealed class SqliteDataStore : IDataStore
{
    // Design: every read opens its own pooled connection, so threads never share a SQLite handle.
    // WAL lets readers work on a snapshot while one writer commits; reads never wait for writes.
    // SQLite admits one writer per file at a time anyway, so writers of this process queue on an
    // async gate (_writeGate) instead of blocking pool threads inside SQLite's busy handler, and
    // write through one connection held from the first write to disposal, whose hot statements
    // (a job's insert and update) are prepared once (Statement). A connection's settings are
    // applied once, when the pool first hands it out (Configure). The busy timeout is left for
    // writers in other processes. Write transactions start IMMEDIATE (take the write lock first),
    // so a writer never has to upgrade a read snapshot that another process has outdated, which
    // SQLite would fail at once instead of waiting. The gate is taken
    // before any SQLite lock and released after, and nothing else is locked, so there is no cycle.
    // Checkpoints are not made by commits (wal_autocheckpoint = 0): SQLite's default has the commit
    // that takes the log past 1,000 pages copy it into the database and sync the file, so one write
    // in a few hundred took milliseconds (bench/results/gateway.md). Instead, a write that finds the
    // log past CheckpointBytes starts one PASSIVE checkpoint in the background and returns; readers
    // and writers go on while it copies. The log restarts from its beginning (and its file is cut
    // back to WalSizeLimit) only when a write begins after a checkpoint has copied all of it: writes
    // back to back would grow it without end, so a writer that finds it past CatchUpBytes waits for
    // the running checkpoint, which then copies once more under the write gate. Closing the last
    // connection checkpoints what is left.
    private const int BusyTimeoutMilliseconds = 30_000;
    private const int CancellationCheckInterval = 4096;

    /// <summary>The write-ahead log's size past which a write starts a background checkpoint (SQLite's default threshold, 1,000 pages of 4 KiB).</summary>
    private const long CheckpointBytes = 4_096_000;

    /// <summary>The log's file size past which writers wait for a checkpoint to catch up (the background ones fell behind).</summary>
    private const long CatchUpBytes = 4 * CheckpointBytes;

    /// <summary>What the log's file is cut back to when it restarts (journal_size_limit), below <see cref="CheckpointBytes"/> so its size tells how much it holds.</summary>
    private const long WalSizeLimit = 1_048_576;

    /// <summary>An import begun this long ago and not finished was interrupted (a 50M-point import takes minutes).</summary>
    private static readonly TimeSpan AbandonedImportAge = TimeSpan.FromHours(1);

    private const string DatasetColumns =
        "id, name, kind, count, dimension, bits, fingerprint_type, total_weight, created_us, source, metadata, tenant, bytes";

    private const string JobColumns =
        "id, service, kind, state, created_us, started_us, finished_us, queue_ms, compute_ms, dataset_id, parameters, progress, result, error, tenant";

    private const string JobParameters =
        "$id, $service, $kind, $state, $created_us, $started_us, $finished_us, $queue_ms, $compute_ms, $dataset_id, $parameters, $progress, $result, $error, $tenant";

    private const string InsertJob = $"INSERT INTO jobs ({JobColumns}) VALUES ({JobParameters});";

    /// <summary>A job's upsert: afterwards the stored record is this one whether or not it existed.</summary>
    private const string UpsertJob = $"""
        INSERT INTO jobs ({JobColumns}) VALUES ({JobParameters})
        ON CONFLICT (id) DO UPDATE SET
            service = excluded.service, kind = excluded.kind, state = excluded.state,
            created_us = excluded.created_us, started_us = excluded.started_us, finished_us = excluded.finished_us,
            queue_ms = excluded.queue_ms, compute_ms = excluded.compute_ms, dataset_id = excluded.dataset_id,
            parameters = excluded.parameters, progress = excluded.progress, result = excluded.result, error = excluded.error,
            tenant = excluded.tenant;
        """;

    private readonly string _connectionString;
    private readonly TimeProvider _timeProvider;
    private readonly SemaphoreSlim _writeGate = new(1, 1);

    /// <summary>The physical connections whose settings are applied (a pooled connection keeps them).</summary>
    private static readonly ConditionalWeakTable<sqlite3, object?> s_configured = [];

    /// <summary>The connection every write goes through, under <see cref="_writeGate"/>; null until the first write, and after a failure that closed it.</summary>
    private SqliteConnection? _writer;

    /// <summary>The writer's prepared statements by their SQL, used and changed only under <see cref="_writeGate"/>.</summary>
    private readonly Dictionary<string, SqliteCommand> _statements = new(StringComparer.Ordinal);
    private readonly string _walPath;
    private Task _checkpoint = Task.CompletedTask;
    private int _checkpointing;
    private int _disposed;

    /// <param name="path">The database file; missing directories are created by <see cref="InitializeAsync"/>.</param>
    /// <param name="timeProvider">The clock for <see cref="MarkInterruptedAsync"/>'s Finished time.</param>
    /// <param name="quota">What each tenant may keep; null for no bound.</param>
    public SqliteDataStore(string path, TimeProvider? timeProvider = null, StorageQuota? quota = null)
    {
        Quota = quota;
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        PointVectors.EnsureLittleEndian();
        Path = System.IO.Path.GetFullPath(path);
        _walPath = Path + "-wal";
        _timeProvider = timeProvider ?? TimeProvider.System;
        _connectionString = new SqliteConnectionStringBuilder
        {
            DataSource = Path,
            Mode = SqliteOpenMode.ReadWriteCreate,
            Cache = SqliteCacheMode.Private,
            Pooling = true,
            // Microsoft.Data.Sqlite's own retry on SQLITE_BUSY, behind SQLite's busy timeout.
            DefaultTimeout = BusyTimeoutMilliseconds / 1000,
        }.ToString();
    }

    /// <summary>The database file's full path.</summary>
    public string Path { get; }

    public async Task InitializeAsync(CancellationToken cancellationToken = default)
    {
        KeepPrivate();
        await WriteAsync(connection =>
        {
            // WAL is a property of the file, so setting it once sticks for every later connection
            // and every process. It must be set outside a transaction.
            using (var wal = connection.CreateCommand())
            {
                wal.CommandText = "PRAGMA journal_mode = WAL;";
                var mode = Convert.ToString(wal.ExecuteScalar(), CultureInfo.InvariantCulture);
                if (!string.Equals(mode, "wal", StringComparison.OrdinalIgnoreCase))
                {
                    throw new InvalidOperationException($"SQLite refused WAL mode for {Path} (journal_mode is '{mode}'); the file system may not support shared memory.");
                }
            }

            // IMMEDIATE: processes initialising the same new file at once take turns.
            using var transaction = connection.BeginTransaction(deferred: false);
            long found;
            using (var version = Command(connection, transaction, "PRAGMA user_version;"))
            {
                found = Convert.ToInt64(version.ExecuteScalar(), CultureInfo.InvariantCulture);
                if (found > StoreSchema.Version)
                {
                    throw new NotSupportedException($"{Path} has schema version {found}; this build of Salsa.Store knows versions up to {StoreSchema.Version}.");
                }
            }

            var migrate = string.Concat(StoreSchema.SqliteSteps.Skip((int)found)) + $"PRAGMA user_version = {StoreSchema.Version};";
            using (var create = Command(connection, transaction, migrate))
            {
                create.ExecuteNonQuery();
            }

            transaction.Commit();

            // Imports a crash interrupted: their hidden rows, once no import could still be writing them.
            var abandoned = new List<long>();
            using (var stale = Command(connection, null, "SELECT pk FROM datasets WHERE importing_since_us < $before;"))
            {
                stale.Parameters.AddWithValue("$before", StoreTime.ToUnixMicroseconds(_timeProvider.GetUtcNow() - AbandonedImportAge));
                using var reader = stale.ExecuteReader();
                while (reader.Read())
                {
                    abandoned.Add(reader.GetInt64(0));
                }
            }

            foreach (var pk in abandoned)
            {
                DeleteDataset(connection, "pk = $key AND importing_since_us IS NOT NULL", pk);
            }

            return 0;
        }, cancellationToken);
    }

    /// <summary>
    /// The store holds every tenant's data and the API keys' hashes: its folder is made 0700 when this
    /// creates it, and the file 0600 before SQLite first opens it — SQLite gives its <c>-wal</c> and
    /// <c>-shm</c> files the database file's mode. A file left readable by others (by an older build)
    /// is made 0600 with them.
    /// </summary>
    private void KeepPrivate()
    {
        var folder = System.IO.Path.GetDirectoryName(Path)!;
        if (OperatingSystem.IsWindows())
        {
            Directory.CreateDirectory(folder);
            return;
        }

        const UnixFileMode Owner = UnixFileMode.UserRead | UnixFileMode.UserWrite;
        Directory.CreateDirectory(folder, Owner | UnixFileMode.UserExecute);
        try
        {
            using var created = new FileStream(Path, new FileStreamOptions { Mode = FileMode.CreateNew, Access = FileAccess.Write, UnixCreateMode = Owner });
        }
        catch (IOException) when (File.Exists(Path))
        {
            // There already (or another process created it just now).
        }

        foreach (var file in (ReadOnlySpan<string>)[Path, Path + "-wal", Path + "-shm"])
        {
            if (File.Exists(file) && (File.GetUnixFileMode(file) & ~(Owner | UnixFileMode.UserExecute)) != 0)
            {
                File.SetUnixFileMode(file, Owner);
            }
        }
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
        var pk = -1L;
        try
        {
            var check = new StoreValidation.ImportCheck(stored);
            await foreach (var part in parts.WithCancellation(cancellationToken).ConfigureAwait(false))
            {
                var from = check.Next(part);
                if (pk < 0)
                {
                    // The row the points hang on, hidden until the last part is in.
                    pk = await WriteAsync(connection => InsertDataset(connection, stored, part, StoreTime.ToUnixMicroseconds(_timeProvider.GetUtcNow())), cancellationToken);
                }

                // One transaction per part: other writers of the file take their turn in between.
                await WriteAsync(connection =>
                {
                    using var transaction = connection.BeginTransaction(deferred: false);
                    InsertPoints(connection, pk, stored, part, from, cancellationToken);
                    transaction.Commit();
                    return 0;
                }, cancellationToken);
            }

            check.Finish();
            var total = check.TotalWeight;
            stored = stored with { TotalWeight = total, Bytes = check.Bytes };
            if (pk < 0)
            {
                await WriteAsync(connection =>
                {
                    using var transaction = connection.BeginTransaction(deferred: false);
                    RequireRoom(connection, transaction, stored);
                    InsertDataset(connection, stored, new DatasetContent { Weights = [] }, importingSince: null, transaction);
                    transaction.Commit();
                    return 0;
                }, cancellationToken);
                return stored;
            }

            // The quota's check and the dataset's becoming visible in one IMMEDIATE transaction:
            // another import (of this process or another on the same file) completes before or after.
            await WriteAsync(connection =>
            {
                using var transaction = connection.BeginTransaction(deferred: false);
                RequireRoom(connection, transaction, stored);
                using var complete = Command(connection, transaction, "UPDATE datasets SET total_weight = $total_weight, bytes = $bytes, importing_since_us = NULL WHERE pk = $pk;");
                complete.Parameters.AddWithValue("$total_weight", total);
                complete.Parameters.AddWithValue("$bytes", stored.Bytes);
                complete.Parameters.AddWithValue("$pk", pk);
                complete.ExecuteNonQuery();
                transaction.Commit();
                return 0;
            }, cancellationToken);
            return stored;
        }
        catch when (pk >= 0)
        {
            // Whatever failed (a bad part, the caller cancelling, the disk): nothing of it stays.
            await WriteAsync(connection => DeleteDataset(connection, "pk = $key", pk), CancellationToken.None);
            throw;
        }
    }

    /// <summary>Refuses <paramref name="stored"/> when its tenant's finished datasets leave no room for it under <see cref="Quota"/>.</summary>
    private void RequireRoom(SqliteConnection connection, SqliteTransaction transaction, DatasetInfo stored)
    {
        if (Quota is { } quota)
        {
            quota.Check(stored.Tenant, Usage(connection, transaction, stored.Tenant), stored.Bytes);
        }
    }

    private static StorageUsage Usage(SqliteConnection connection, SqliteTransaction? transaction, string tenant)
    {
        using var usage = Command(connection, transaction, "SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM datasets WHERE tenant = $tenant AND importing_since_us IS NULL;");
        usage.Parameters.AddWithValue("$tenant", tenant);
        using var reader = usage.ExecuteReader();
        reader.Read();
        return new StorageUsage(reader.GetInt32(0), reader.GetInt64(1));
    }

    public StorageQuota? Quota { get; }

    public async Task<StorageUsage> GetUsageAsync(string tenant, CancellationToken cancellationToken = default)
    {
        Tenants.Require(tenant);
        await using var connection = await OpenAsync(cancellationToken);
        return Usage(connection, null, tenant);
    }

    /// <summary>Inserts the dataset's row (hidden while <paramref name="importingSince"/> is set) and returns its key.</summary>
    private static long InsertDataset(SqliteConnection connection, DatasetInfo stored, DatasetContent first, long? importingSince, SqliteTransaction? transaction = null)
    {
        using var insert = Command(connection, transaction, $"""
            INSERT INTO datasets ({DatasetColumns}, has_labels, has_texts, importing_since_us)
            VALUES ($id, $name, $kind, $count, $dimension, $bits, $fingerprint_type, $total_weight, $created_us, $source, $metadata, $tenant, $bytes, $has_labels, $has_texts, $importing_since_us)
            RETURNING pk;
            """);
        insert.Parameters.AddWithValue("$id", Text(stored.Id));
        insert.Parameters.AddWithValue("$name", stored.Name);
        insert.Parameters.AddWithValue("$kind", (int)stored.Kind);
        insert.Parameters.AddWithValue("$count", stored.Count);
        insert.Parameters.AddWithValue("$dimension", stored.Dimension);
        insert.Parameters.AddWithValue("$bits", stored.Bits);
        insert.Parameters.AddWithValue("$fingerprint_type", (object?)stored.FingerprintType ?? DBNull.Value);
        insert.Parameters.AddWithValue("$total_weight", stored.TotalWeight);
        insert.Parameters.AddWithValue("$created_us", StoreTime.ToUnixMicroseconds(stored.Created));
        insert.Parameters.AddWithValue("$source", stored.Source);
        insert.Parameters.AddWithValue("$metadata", MetadataJson.Serialize(stored.Metadata));
        insert.Parameters.AddWithValue("$tenant", stored.Tenant);
        insert.Parameters.AddWithValue("$bytes", stored.Bytes);
        insert.Parameters.AddWithValue("$has_labels", first.Labels is not null);
        insert.Parameters.AddWithValue("$has_texts", first.Texts is not null);
        insert.Parameters.AddWithValue("$importing_since_us", (object?)importingSince ?? DBNull.Value);
        try
        {
            return (long)insert.ExecuteScalar()!;
        }
        catch (SqliteException e) when (IsUniqueViolation(e))
        {
            throw new InvalidOperationException($"A dataset with id {stored.Id} already exists.", e);
        }
    }

    /// <summary>Deletes the points and row of the dataset <paramref name="which"/> selects (by <c>$key</c>), in one transaction; false when there was none.</summary>
    private static bool DeleteDataset(SqliteConnection connection, string which, object key)
    {
        // Points go in the same transaction as their dataset row (no foreign key: it would
        // cost a parent lookup per inserted point and guard nothing this class does not).
        using var transaction = connection.BeginTransaction(deferred: false);
        using (var points = Command(connection, transaction, $"DELETE FROM dataset_points WHERE dataset_pk = (SELECT pk FROM datasets WHERE {which});"))
        {
            points.Parameters.AddWithValue("$key", key);
            points.ExecuteNonQuery();
        }

        using var dataset = Command(connection, transaction, $"DELETE FROM datasets WHERE {which};");
        dataset.Parameters.AddWithValue("$key", key);
        var deleted = dataset.ExecuteNonQuery() > 0;
        transaction.Commit();
        return deleted;
    }

    private static void InsertPoints(SqliteConnection connection, long pk, DatasetInfo info, DatasetContent content, int first, CancellationToken cancellationToken)
    {
        // Through SQLite's own API (SQLitePCLRaw, which Microsoft.Data.Sqlite wraps), on the same
        // connection and so inside its transaction: one prepared statement, each value bound in
        // place — no boxing, no per-call parameter bookkeeping — at several times SqliteCommand's
        // rate per row, which is what a ten-million-point import is made of.
        var columns = "dataset_pk, idx, weight" + (content.Values is not null || content.Words is not null ? ", vector" : "")
            + (content.Labels is not null ? ", label" : "") + (content.Texts is not null ? ", text" : "");
        var values = string.Join(", ", columns.Split(", ").Select((_, c) => "?" + (c + 1).ToString(CultureInfo.InvariantCulture)));
        var db = connection.Handle!;
        Check(raw.sqlite3_prepare_v2(db, $"INSERT INTO dataset_points ({columns}) VALUES ({values});", out var statement), db);
        using (statement)
        {
            var vectorBytes = StoreValidation.VectorBytes(info.Kind, info.Dimension, info.Bits);
            var all = content.Values is { } doubles ? MemoryMarshal.AsBytes(doubles.AsSpan())
                : content.Words is { } words ? MemoryMarshal.AsBytes(words.AsSpan()) : [];
            Check(raw.sqlite3_bind_int64(statement, 1, pk), db); // bindings stay across resets
            for (var i = 0; i < content.Weights.Length; i++)
            {
                if (i % CancellationCheckInterval == 0)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                }

                var column = 2;
                Check(raw.sqlite3_bind_int64(statement, column++, first + i), db);
                Check(raw.sqlite3_bind_double(statement, column++, content.Weights[i]), db);
                if (vectorBytes > 0)
                {
                    // SQLITE_TRANSIENT: SQLite copies the bytes before this returns.
                    Check(raw.sqlite3_bind_blob(statement, column++, all.Slice(i * vectorBytes, vectorBytes)), db);
                }

                if (content.Labels is { } labels)
                {
                    Check(raw.sqlite3_bind_text(statement, column++, labels[i]), db);
                }

                if (content.Texts is { } texts)
                {
                    Check(raw.sqlite3_bind_text(statement, column, texts[i]), db);
                }

                var done = raw.sqlite3_step(statement);
                if (done != raw.SQLITE_DONE)
                {
                    SqliteException.ThrowExceptionForRC(done, db);
                }

                Check(raw.sqlite3_reset(statement), db);
            }
        }

        static void Check(int rc, sqlite3 db) => SqliteException.ThrowExceptionForRC(rc, db);
    }

    public async Task<DatasetInfo?> GetDatasetAsync(Guid id, CancellationToken cancellationToken = default)
    {
        await using var connection = await OpenAsync(cancellationToken);
        using var select = Command(connection, null, $"SELECT {DatasetColumns} FROM datasets WHERE id = $id AND importing_since_us IS NULL;");
        select.Parameters.AddWithValue("$id", Text(id));
        using var reader = select.ExecuteReader();
        return reader.Read() ? ReadDatasetInfo(reader) : null;
    }

    public Task<DatasetContent?> ReadDatasetAsync(Guid id, CancellationToken cancellationToken = default) =>
        ReadRowsAsync(id, null, cancellationToken);

    public Task<DatasetContent?> ReadDatasetRowsAsync(Guid id, int start, int count, CancellationToken cancellationToken = default)
    {
        StoreValidation.CheckRange(start, count, int.MaxValue);
        return ReadRowsAsync(id, (start, count), cancellationToken);
    }

    // The whole dataset, or a range of its rows (a range scan of the points' primary key).
    private async Task<DatasetContent?> ReadRowsAsync(Guid id, (int Start, int Count)? range, CancellationToken cancellationToken)
    {
        await using var connection = await OpenAsync(cancellationToken);

        // A read transaction pins one WAL snapshot, so a concurrent delete cannot split the
        // dataset row from its points.
        using var transaction = connection.BeginTransaction(deferred: true);
        DatasetContentBuilder builder;
        long pk;
        using (var select = Command(connection, transaction, "SELECT pk, kind, count, dimension, bits, has_labels, has_texts FROM datasets WHERE id = $id AND importing_since_us IS NULL;"))
        {
            select.Parameters.AddWithValue("$id", Text(id));
            using var row = select.ExecuteReader();
            if (!row.Read())
            {
                return null;
            }

            pk = row.GetInt64(0);
            var rows = row.GetInt32(2);
            var (start, count) = range ?? (0, rows);
            StoreValidation.CheckRange(start, count, rows);
            builder = new DatasetContentBuilder((DatasetKind)row.GetInt32(1), count, row.GetInt32(3), row.GetInt32(4), row.GetBoolean(5), row.GetBoolean(6), start);
        }

        using (var points = Command(connection, transaction,
            "SELECT idx, vector, weight, label, text FROM dataset_points WHERE dataset_pk = $pk AND idx >= $start AND idx < $end ORDER BY idx;"))
        {
            points.Parameters.AddWithValue("$pk", pk);
            points.Parameters.AddWithValue("$start", builder.First);
            points.Parameters.AddWithValue("$end", (long)builder.First + builder.Count);
            using var reader = points.ExecuteReader();
            var read = 0;
            while (reader.Read())
            {
                if (read++ % CancellationCheckInterval == 0)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                }

                var index = reader.GetInt32(0);
                if (builder.VectorBytes > 0)
                {
                    // GetFieldValue<byte[]> copies the column in one call; GetBytes would open an
                    // incremental-BLOB handle per row, which is 25 times slower.
                    var vector = reader.IsDBNull(1) ? null : reader.GetFieldValue<byte[]>(1);
                    if (vector?.Length != builder.VectorBytes)
                    {
                        throw new InvalidDataException($"Point {index} of dataset {id} has a {vector?.Length ?? -1}-byte vector; {builder.VectorBytes} expected.");
                    }

                    vector.CopyTo(builder.NextVector);
                }

                builder.Add(index, reader.GetDouble(2), reader.IsDBNull(3) ? null : reader.GetString(3), reader.IsDBNull(4) ? null : reader.GetString(4));
            }
        }

        return builder.Build();
    }

    public async Task<IReadOnlyList<DatasetInfo>> ListDatasetsAsync(string? tenant, int limit = 100, CancellationToken cancellationToken = default)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(limit);
        await using var connection = await OpenAsync(cancellationToken);
        var filter = tenant is null ? "WHERE importing_since_us IS NULL" : "WHERE importing_since_us IS NULL AND tenant = $tenant";
        using var select = Command(connection, null, $"SELECT {DatasetColumns} FROM datasets {filter} ORDER BY created_us DESC, pk DESC LIMIT $limit;");
        select.Parameters.AddWithValue("$limit", limit);
        if (tenant is not null)
        {
            select.Parameters.AddWithValue("$tenant", tenant);
        }

        using var reader = select.ExecuteReader();
        var list = new List<DatasetInfo>();
        while (reader.Read())
        {
            list.Add(ReadDatasetInfo(reader));
        }

        return list;
    }

    public Task<bool> DeleteDatasetAsync(Guid id, CancellationToken cancellationToken = default) =>
        WriteAsync(connection => DeleteDataset(connection, "id = $key AND importing_since_us IS NULL", Text(id)), cancellationToken);

    public Task InsertJobAsync(JobRecord job, CancellationToken cancellationToken = default)
    {
        StoreValidation.ValidateJob(job);
        return WriteAsync(connection =>
        {
            var insert = Statement(InsertJob);
            BindJob(insert, job);
            try
            {
                insert.ExecuteNonQuery();
            }
            catch (SqliteException e) when (IsUniqueViolation(e))
            {
                throw new InvalidOperationException($"A job with id {job.Id} already exists.", e);
            }

            return 0;
        }, cancellationToken);
    }

    public Task UpdateJobAsync(JobRecord job, CancellationToken cancellationToken = default)
    {
        StoreValidation.ValidateJob(job);
        return WriteAsync(connection =>
        {
            var upsert = Statement(UpsertJob);
            BindJob(upsert, job);
            upsert.ExecuteNonQuery();
            return 0;
        }, cancellationToken);
    }

    public async Task<JobRecord?> GetJobAsync(Guid id, CancellationToken cancellationToken = default)
    {
        await using var connection = await OpenAsync(cancellationToken);
        using var select = Command(connection, null, $"SELECT {JobColumns} FROM jobs WHERE id = $id;");
        select.Parameters.AddWithValue("$id", Text(id));
        using var reader = select.ExecuteReader();
        return reader.Read() ? ReadJob(reader) : null;
    }

    public async Task<JobRecord?> FindDatasetUserAsync(Guid id, CancellationToken cancellationToken = default)
    {
        await using var connection = await OpenAsync(cancellationToken);
        using var select = Command(connection, null, $"""
            SELECT {JobColumns} FROM jobs
            WHERE state IN ($queued, $running) AND (dataset_id = $id OR instr(parameters, $id) > 0 OR instr(coalesce(result, ''), $id) > 0)
            ORDER BY created_us, seq LIMIT 1;
            """);
        select.Parameters.AddWithValue("$id", Text(id));
        select.Parameters.AddWithValue("$queued", (int)JobState.Queued);
        select.Parameters.AddWithValue("$running", (int)JobState.Running);
        using var reader = select.ExecuteReader();
        return reader.Read() ? ReadJob(reader) : null;
    }

    public async Task<IReadOnlyList<JobRecord>> ListJobsAsync(string? service, string? tenant, int limit = 100, CancellationToken cancellationToken = default) =>
        (await QueryJobsAsync(new JobQuery { Service = service, Tenant = tenant, Limit = limit }, cancellationToken)).Jobs;

    public async Task<JobPage> QueryJobsAsync(JobQuery query, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(query);
        ArgumentOutOfRangeException.ThrowIfNegative(query.Limit);
        ArgumentOutOfRangeException.ThrowIfNegative(query.Offset);
        await using var connection = await OpenAsync(cancellationToken);
        using var select = Command(connection, null, "");
        var conditions = new List<string>();
        void Filter(string condition, string name, object? value)
        {
            if (value is not null)
            {
                conditions.Add(condition);
                select.Parameters.AddWithValue(name, value);
            }
        }

        Filter("service = $service", "$service", query.Service);
        Filter("tenant = $tenant", "$tenant", query.Tenant);
        Filter("kind = $kind", "$kind", query.Kind);
        Filter("state = $state", "$state", (int?)query.State);
        Filter("created_us >= $from", "$from", query.CreatedFrom is { } from ? StoreTime.ToUnixMicroseconds(from) : null);
        Filter("created_us < $before", "$before", query.CreatedBefore is { } before ? StoreTime.ToUnixMicroseconds(before) : null);
        var where = conditions.Count == 0 ? "" : "WHERE " + string.Join(" AND ", conditions);
        // The total rides on every row (a window over the filtered rows, before the page is cut).
        select.CommandText = $"SELECT {JobColumns}, count(*) OVER () FROM jobs {where} ORDER BY created_us DESC, seq DESC LIMIT $limit OFFSET $offset;";
        select.Parameters.AddWithValue("$limit", query.Limit);
        select.Parameters.AddWithValue("$offset", query.Offset);
        var list = new List<JobRecord>();
        var total = -1L;
        using (var reader = select.ExecuteReader())
        {
            while (reader.Read())
            {
                list.Add(ReadJob(reader));
                total = reader.GetInt64(15);
            }
        }

        if (total < 0)
        {
            // No row on this page: count alone (the page may lie past the end, or be empty by its limit).
            select.CommandText = $"SELECT count(*) FROM jobs {where};";
            total = (long)select.ExecuteScalar()!;
        }

        return new JobPage(list, checked((int)total));
    }

    public Task<int> MarkInterruptedAsync(string service, string reason, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(service);
        ArgumentNullException.ThrowIfNull(reason);
        var finished = StoreTime.ToUnixMicroseconds(_timeProvider.GetUtcNow());
        return WriteAsync(connection =>
        {
            using var update = Command(connection, null, """
                UPDATE jobs SET state = $interrupted, finished_us = $finished, error = $reason
                WHERE service = $service AND state IN ($queued, $running);
                """);
            update.Parameters.AddWithValue("$interrupted", (int)JobState.Interrupted);
            update.Parameters.AddWithValue("$finished", finished);
            update.Parameters.AddWithValue("$reason", reason);
            update.Parameters.AddWithValue("$service", service);
            update.Parameters.AddWithValue("$queued", (int)JobState.Queued);
            update.Parameters.AddWithValue("$running", (int)JobState.Running);
            return update.ExecuteNonQuery();
        }, cancellationToken);
    }

    public Task PutArtifactAsync(Guid jobId, Artifact artifact, CancellationToken cancellationToken = default)
    {
        StoreValidation.ValidateArtifact(artifact);
        return WriteAsync(connection =>
        {
            using var upsert = Command(connection, null, """
                INSERT INTO job_artifacts (job_id, name, content_type, data) VALUES ($job_id, $name, $content_type, $data)
                ON CONFLICT (job_id, name) DO UPDATE SET content_type = excluded.content_type, data = excluded.data;
                """);
            upsert.Parameters.AddWithValue("$job_id", Text(jobId));
            upsert.Parameters.AddWithValue("$name", artifact.Name);
            upsert.Parameters.AddWithValue("$content_type", artifact.ContentType);
            upsert.Parameters.Add("$data", SqliteType.Blob).Value = artifact.Data;
            upsert.ExecuteNonQuery();
            return 0;
        }, cancellationToken);
    }

    public async Task<Artifact?> GetArtifactAsync(Guid jobId, string name, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(name);
        await using var connection = await OpenAsync(cancellationToken);
        using var select = Command(connection, null, "SELECT content_type, data FROM job_artifacts WHERE job_id = $job_id AND name = $name;");
        select.Parameters.AddWithValue("$job_id", Text(jobId));
        select.Parameters.AddWithValue("$name", name);
        using var reader = select.ExecuteReader();
        return reader.Read() ? new Artifact(name, reader.GetString(0), reader.GetFieldValue<byte[]>(1)) : null;
    }

    public async Task<IReadOnlyList<(string Name, string ContentType, long Size)>> ListArtifactsAsync(Guid jobId, CancellationToken cancellationToken = default)
    {
        await using var connection = await OpenAsync(cancellationToken);

        // length() of a BLOB reads the record header only, not the data.
        using var select = Command(connection, null, "SELECT name, content_type, length(data) FROM job_artifacts WHERE job_id = $job_id ORDER BY name;");
        select.Parameters.AddWithValue("$job_id", Text(jobId));
        using var reader = select.ExecuteReader();
        var list = new List<(string, string, long)>();
        while (reader.Read())
        {
            list.Add((reader.GetString(0), reader.GetString(1), reader.GetInt64(2)));
        }

        return list;
    }

    public Task InsertApiKeyAsync(ApiKeyRecord key, int maxLiveKeys, CancellationToken cancellationToken = default)
    {
        StoreValidation.ValidateApiKey(key);
        return WriteAsync(connection =>
        {
            // The count and the insert in one IMMEDIATE transaction: concurrent creates take turns.
            using var transaction = connection.BeginTransaction(deferred: false);
            using (var live = Command(connection, transaction, "SELECT COUNT(*) FROM api_keys WHERE tenant = $tenant AND revoked_us IS NULL;"))
            {
                live.Parameters.AddWithValue("$tenant", key.Tenant);
                StoreValidation.RequireKeyRoom(key.Tenant, Convert.ToInt32(live.ExecuteScalar(), CultureInfo.InvariantCulture), maxLiveKeys);
            }

            using var insert = Command(connection, transaction, """
                INSERT INTO api_keys (id, tenant, name, scopes, secret_hash, created_us, revoked_us)
                VALUES ($id, $tenant, $name, $scopes, $secret_hash, $created_us, $revoked_us);
                """);
            insert.Parameters.AddWithValue("$id", key.Id);
            insert.Parameters.AddWithValue("$tenant", key.Tenant);
            insert.Parameters.AddWithValue("$name", key.Name);
            insert.Parameters.AddWithValue("$scopes", string.Join(' ', key.Scopes));
            insert.Parameters.Add("$secret_hash", SqliteType.Blob).Value = key.SecretHash;
            insert.Parameters.AddWithValue("$created_us", StoreTime.ToUnixMicroseconds(key.Created));
            insert.Parameters.AddWithValue("$revoked_us", key.Revoked is { } revoked ? StoreTime.ToUnixMicroseconds(revoked) : DBNull.Value);
            try
            {
                insert.ExecuteNonQuery();
            }
            catch (SqliteException e) when (IsUniqueViolation(e))
            {
                throw new InvalidOperationException($"An API key with id {key.Id} already exists.", e);
            }

            transaction.Commit();
            return 0;
        }, cancellationToken);
    }

    public async Task<ApiKeyRecord?> GetApiKeyAsync(string id, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(id);
        await using var connection = await OpenAsync(cancellationToken);
        using var select = Command(connection, null, $"SELECT {ApiKeyColumns} FROM api_keys WHERE id = $id;");
        select.Parameters.AddWithValue("$id", id);
        using var reader = select.ExecuteReader();
        return reader.Read() ? ReadApiKey(reader) : null;
    }

    public async Task<IReadOnlyList<ApiKeyRecord>> ListApiKeysAsync(string? tenant, CancellationToken cancellationToken = default)
    {
        await using var connection = await OpenAsync(cancellationToken);
        var filter = tenant is null ? "" : "WHERE tenant = $tenant";
        using var select = Command(connection, null, $"SELECT {ApiKeyColumns} FROM api_keys {filter} ORDER BY created_us, id;");
        if (tenant is not null)
        {
            select.Parameters.AddWithValue("$tenant", tenant);
        }

        using var reader = select.ExecuteReader();
        var list = new List<ApiKeyRecord>();
        while (reader.Read())
        {
            list.Add(ReadApiKey(reader));
        }

        return list;
    }

    public Task<bool> RevokeApiKeyAsync(string id, DateTimeOffset revoked, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(id);
        return WriteAsync(connection =>
        {
            using var update = Command(connection, null, "UPDATE api_keys SET revoked_us = $when WHERE id = $id AND revoked_us IS NULL;");
            update.Parameters.AddWithValue("$id", id);
            update.Parameters.AddWithValue("$when", StoreTime.ToUnixMicroseconds(revoked));
            return update.ExecuteNonQuery() > 0;
        }, cancellationToken);
    }

    private const string ApiKeyColumns = "id, tenant, name, scopes, secret_hash, created_us, revoked_us";

    private static ApiKeyRecord ReadApiKey(SqliteDataReader reader) => new()
    {
        Id = reader.GetString(0),
        Tenant = reader.GetString(1),
        Name = reader.GetString(2),
        Scopes = reader.GetString(3).Split(' ', StringSplitOptions.RemoveEmptyEntries),
        SecretHash = reader.GetFieldValue<byte[]>(4),
        Created = StoreTime.FromUnixMicroseconds(reader.GetInt64(5)),
        Revoked = reader.IsDBNull(6) ? null : StoreTime.FromUnixMicroseconds(reader.GetInt64(6)),
    };

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) == 0)
        {
            // A background checkpoint ends first, so its connection is among those closed below.
            await _checkpoint.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);

            // The write in flight, if any, ends before the writer is closed; later ones find the store disposed.
            await _writeGate.WaitAsync();
            try
            {
                CloseWriter();
            }
            finally
            {
                _writeGate.Release();
            }

            // Close the pooled handles so the file (and its -wal/-shm) is released: another
            // store, process or test can reopen, move or delete it.
            // The write gate is left undisposed on purpose: it holds no handle (its wait handle
            // is never asked for), and an operation still in flight must be able to release it.
            using var connection = new SqliteConnection(_connectionString);
            SqliteConnection.ClearPool(connection);
        }
    }

    private async Task<SqliteConnection> OpenAsync(CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        var connection = new SqliteConnection(_connectionString);
        try
        {
            await connection.OpenAsync(cancellationToken);
            Configure(connection);
            return connection;
        }
        catch
        {
            await connection.DisposeAsync();
            throw;
        }
    }

    /// <summary>
    /// A connection's settings, applied the first time the pool hands it out: a pooled connection
    /// keeps them, and applying them costs about as much as a small write. synchronous=NORMAL is
    /// durable against crashes of the process in WAL mode and skips an fsync per commit; a power
    /// cut can lose the last commits, never corrupt the file.
    /// </summary>
    private static void Configure(SqliteConnection connection)
    {
        if (s_configured.TryGetValue(connection.Handle!, out _))
        {
            return;
        }

        using var pragma = connection.CreateCommand();
        pragma.CommandText = $"PRAGMA busy_timeout = {BusyTimeoutMilliseconds}; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0; PRAGMA journal_size_limit = {WalSizeLimit};";
        pragma.ExecuteNonQuery();
        s_configured.TryAdd(connection.Handle!, null);
    }

    /// <summary>Runs <paramref name="write"/> on the writer connection while holding this process's write gate.</summary>
    private async Task<T> WriteAsync<T>(Func<SqliteConnection, T> write, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        await _writeGate.WaitAsync(cancellationToken);
        T result;
        try
        {
            var writer = _writer ??= await OpenAsync(cancellationToken);
            try
            {
                result = write(writer);
            }
            catch when (writer.State != ConnectionState.Open)
            {
                CloseWriter();
                throw;
            }
        }
        finally
        {
            _writeGate.Release();
        }

        await CheckpointIfLarge();
        return result;
    }

    /// <summary>
    /// Starts a background checkpoint when the log has grown past <see cref="CheckpointBytes"/> and none
    /// is running; returns it to wait for only when the log is past <see cref="CatchUpBytes"/>, so
    /// writers that outrun the checkpoints are held back and the log stays bounded.
    /// </summary>
    private Task CheckpointIfLarge()
    {
        var log = new FileInfo(_walPath);
        if (!log.Exists || log.Length < CheckpointBytes)
        {
            return Task.CompletedTask;
        }

        if (Interlocked.CompareExchange(ref _checkpointing, 1, 0) != 0)
        {
            return log.Length >= CatchUpBytes ? Volatile.Read(ref _checkpoint) : Task.CompletedTask;
        }

        _checkpoint = Task.Run(async () =>
        {
            try
            {
                if (Volatile.Read(ref _disposed) == 0)
                {
                    await using var connection = await OpenAsync(CancellationToken.None);
                    // PASSIVE: copies what no reader still needs and waits for nobody.
                    Checkpoint(connection);
                    if (new FileInfo(_walPath).Length >= CatchUpBytes)
                    {
                        // Commits kept coming: once more with this process's writers held back. Only
                        // a write that begins after a complete copy restarts the log, so with writes
                        // back to back even copies that catch up leave it growing.
                        await _writeGate.WaitAsync();
                        try
                        {
                            Checkpoint(connection);
                        }
                        finally
                        {
                            _writeGate.Release();
                        }
                    }
                }
            }
#pragma warning disable CA1031 // A checkpoint that fails (busy, disposed) is retried by a later write; the data is in the log.
            catch (Exception)
#pragma warning restore CA1031
            {
            }
            finally
            {
                Volatile.Write(ref _checkpointing, 0);
                if (Volatile.Read(ref _disposed) != 0)
                {
                    // Disposed while this ran: its connection went back to the pool after the pool was cleared.
                    using var pooled = new SqliteConnection(_connectionString);
                    SqliteConnection.ClearPool(pooled);
                }
            }
        });
        return log.Length >= CatchUpBytes ? _checkpoint : Task.CompletedTask;
    }

    /// <summary>The writer's prepared statement for <paramref name="sql"/>, its parameters cleared; only under <see cref="_writeGate"/>, and not to be disposed.</summary>
    private SqliteCommand Statement(string sql)
    {
        if (!_statements.TryGetValue(sql, out var statement))
        {
            statement = Command(_writer!, null, sql);
            _statements.Add(sql, statement);
        }

        statement.Parameters.Clear();
        return statement;
    }

    /// <summary>Closes the writer and its statements (under <see cref="_writeGate"/>); the next write opens another.</summary>
    private void CloseWriter()
    {
        foreach (var statement in _statements.Values)
        {
            statement.Dispose();
        }

        _statements.Clear();
        _writer?.Dispose();
        _writer = null;
    }

    /// <summary>A PASSIVE checkpoint: copies the log's frames no reader still needs into the database.</summary>
    private static void Checkpoint(SqliteConnection connection)
    {
        using var checkpoint = connection.CreateCommand();
        checkpoint.CommandText = "PRAGMA wal_checkpoint(PASSIVE);";
        checkpoint.ExecuteNonQuery();
    }

    private static SqliteCommand Command(SqliteConnection connection, SqliteTransaction? transaction, string sql)
    {
        var command = connection.CreateCommand();
        command.Transaction = transaction;
        command.CommandText = sql;
        return command;
    }

    private static string Text(Guid id) => id.ToString("D");

    private static bool IsUniqueViolation(SqliteException e) =>
        e.SqliteExtendedErrorCode is 1555 /* SQLITE_CONSTRAINT_PRIMARYKEY */ or 2067 /* SQLITE_CONSTRAINT_UNIQUE */;

    private static DatasetInfo ReadDatasetInfo(SqliteDataReader reader) => new()
    {
        Id = Guid.Parse(reader.GetString(0)),
        Name = reader.GetString(1),
        Kind = (DatasetKind)reader.GetInt32(2),
        Count = reader.GetInt32(3),
        Dimension = reader.GetInt32(4),
        Bits = reader.GetInt32(5),
        FingerprintType = reader.IsDBNull(6) ? null : reader.GetString(6),
        TotalWeight = reader.GetDouble(7),
        Created = StoreTime.FromUnixMicroseconds(reader.GetInt64(8)),
        Source = reader.GetString(9),
        Metadata = MetadataJson.Deserialize(reader.GetString(10)),
        Tenant = reader.GetString(11),
        Bytes = reader.GetInt64(12),
    };

    private static void BindJob(SqliteCommand command, JobRecord job)
    {
        var p = command.Parameters;
        p.AddWithValue("$id", Text(job.Id));
        p.AddWithValue("$service", job.Service);
        p.AddWithValue("$kind", job.Kind);
        p.AddWithValue("$state", (int)job.State);
        p.AddWithValue("$created_us", StoreTime.ToUnixMicroseconds(job.Created));
        p.AddWithValue("$started_us", job.Started is { } started ? StoreTime.ToUnixMicroseconds(started) : DBNull.Value);
        p.AddWithValue("$finished_us", job.Finished is { } finished ? StoreTime.ToUnixMicroseconds(finished) : DBNull.Value);

        // SQLite has no NaN (Microsoft.Data.Sqlite refuses to bind it): NaN is stored as NULL,
        // which the nullable columns read back as NaN.
        p.AddWithValue("$queue_ms", double.IsNaN(job.QueueMilliseconds) ? DBNull.Value : job.QueueMilliseconds);
        p.AddWithValue("$compute_ms", double.IsNaN(job.ComputeMilliseconds) ? DBNull.Value : job.ComputeMilliseconds);
        p.AddWithValue("$dataset_id", job.DatasetId is { } dataset ? Text(dataset) : DBNull.Value);
        p.AddWithValue("$parameters", job.ParametersJson);
        p.AddWithValue("$progress", (object?)job.ProgressJson ?? DBNull.Value);
        p.AddWithValue("$result", (object?)job.ResultJson ?? DBNull.Value);
        p.AddWithValue("$error", (object?)job.Error ?? DBNull.Value);
        p.AddWithValue("$tenant", job.Tenant);
    }

    private static JobRecord ReadJob(SqliteDataReader reader) => new()
    {
        Id = Guid.Parse(reader.GetString(0)),
        Service = reader.GetString(1),
        Kind = reader.GetString(2),
        State = (JobState)reader.GetInt32(3),
        Created = StoreTime.FromUnixMicroseconds(reader.GetInt64(4)),
        Started = reader.IsDBNull(5) ? null : StoreTime.FromUnixMicroseconds(reader.GetInt64(5)),
        Finished = reader.IsDBNull(6) ? null : StoreTime.FromUnixMicroseconds(reader.GetInt64(6)),
        QueueMilliseconds = reader.IsDBNull(7) ? double.NaN : reader.GetDouble(7),
        ComputeMilliseconds = reader.IsDBNull(8) ? double.NaN : reader.GetDouble(8),
        DatasetId = reader.IsDBNull(9) ? null : Guid.Parse(reader.GetString(9)),
        ParametersJson = reader.GetString(10),
        ProgressJson = reader.IsDBNull(11) ? null : reader.GetString(11),
        ResultJson = reader.IsDBNull(12) ? null : reader.GetString(12),
        Error = reader.IsDBNull(13) ? null : reader.GetString(13),
        Tenant = reader.GetString(14),
    };
}
