using System.Data;
using System.Data.Common;
using System.Globalization;
using System.Runtime.CompilerServices;
using Microsoft.Data.Sqlite;
using Salsa.Store.Relational;
using SQLitePCL;

namespace Salsa.Store.Sqlite;

/// <summary>
/// The embedded store: one SQLite file in WAL mode, shared by every thread of this process and by
/// other processes on the same machine. What it stores and how it answers is the relational core's
/// (<see cref="RelationalDataStore"/>, its SQL in <c>Sqlite/Sql</c>); this class holds what is
/// SQLite's own: the connections (one writer behind a gate, pooled readers), checkpoints, the
/// file's permissions and the bulk insert of points (<see cref="SqliteDatasetImport"/>).
/// </summary>
public sealed class SqliteDataStore : RelationalDataStore
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

    /// <summary>The write-ahead log's size past which a write starts a background checkpoint (SQLite's default threshold, 1,000 pages of 4 KiB).</summary>
    private const long CheckpointBytes = 4_096_000;

    /// <summary>The log's file size past which writers wait for a checkpoint to catch up (the background ones fell behind).</summary>
    private const long CatchUpBytes = 4 * CheckpointBytes;

    /// <summary>What the log's file is cut back to when it restarts (journal_size_limit), below <see cref="CheckpointBytes"/> so its size tells how much it holds.</summary>
    private const long WalSizeLimit = 1_048_576;

    /// <summary>An import begun this long ago and not finished was interrupted (a 50M-point import takes minutes).</summary>
    private static readonly TimeSpan AbandonedImportAge = TimeSpan.FromHours(1);

    private readonly string _connectionString;
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

    /// <param name="path">The database file; missing directories are created by <see cref="RelationalDataStore.InitializeAsync"/>.</param>
    /// <param name="timeProvider">The clock for the times the store sets (a job marked interrupted, an import begun).</param>
    /// <param name="quota">What each tenant may keep; null for no bound.</param>
    public SqliteDataStore(string path, TimeProvider? timeProvider = null, StorageQuota? quota = null)
        : base(SqliteDialect.Instance, timeProvider, quota)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(path);
        Path = System.IO.Path.GetFullPath(path);
        _walPath = Path + "-wal";
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

    private protected override string Where => Path;

    private static SqliteQueries SqliteQueries => SqliteDialect.Instance.SqliteQueries;

    private protected override async Task PrepareAsync(CancellationToken cancellationToken)
    {
        KeepPrivate();

        // WAL is a property of the file, so setting it once sticks for every later connection and
        // every process. It must be set outside a transaction.
        await WriteAsync(async (connection, cancellationToken) =>
        {
            using var wal = Command(connection, null, "PRAGMA journal_mode = WAL;");
            var mode = Convert.ToString(await wal.ScalarAsync(cancellationToken), CultureInfo.InvariantCulture);
            return string.Equals(mode, "wal", StringComparison.OrdinalIgnoreCase)
                ? 0
                : throw new InvalidOperationException($"SQLite refused WAL mode for {Path} (journal_mode is '{mode}'); the file system may not support shared memory.");
        }, cancellationToken);
    }

    /// <summary>Removes imports a crash interrupted — their hidden rows, once no import could still be writing them.</summary>
    private protected override Task InitializedAsync(CancellationToken cancellationToken) =>
        WriteAsync(async (connection, cancellationToken) =>
        {
            List<long> abandoned;
            using (var stale = Command(connection, null, SqliteQueries.AbandonedImports).Time("@before", Clock.GetUtcNow() - AbandonedImportAge))
            {
                abandoned = await stale.ListAsync(reader => reader.GetInt64(0), cancellationToken);
            }

            foreach (var key in abandoned)
            {
                await DeleteImportAsync(connection, key, cancellationToken);
            }

            return 0;
        }, cancellationToken);

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

    private protected override Task<DatasetImport> BeginImportAsync(DatasetInfo stored, CancellationToken cancellationToken) =>
        Task.FromResult<DatasetImport>(new SqliteDatasetImport(this, stored));

    /// <summary>Writes the first part's dataset row, hidden until the import completes, and returns its key.</summary>
    internal Task<long> InsertImportRowAsync(DatasetInfo stored, DatasetContent first, CancellationToken cancellationToken) =>
        WriteAsync(async (connection, cancellationToken) => (long)(await InsertDatasetRowAsync(connection, null, stored, first, cancellationToken))!, cancellationToken);

    /// <summary>Writes a part's points in a transaction of their own: other writers of the file take their turn in between.</summary>
    internal Task WritePointsAsync(long key, DatasetInfo stored, DatasetContent part, int from, CancellationToken cancellationToken) =>
        WriteAsync(async (connection, cancellationToken) =>
        {
            await using var transaction = await BeginWriteAsync(connection, cancellationToken);
            SqliteDatasetImport.InsertPoints((SqliteConnection)connection, SqliteQueries.InsertPoints, key, stored, part, from, cancellationToken);
            await transaction.CommitAsync(cancellationToken);
            return 0;
        }, cancellationToken);

    /// <summary>
    /// The quota's check and the dataset's becoming visible in one IMMEDIATE transaction: another
    /// import (of this process or another on the same file) completes before or after.
    /// </summary>
    internal Task CompleteImportAsync(DatasetInfo stored, bool rowWritten, CancellationToken cancellationToken) =>
        WriteAsync(async (connection, cancellationToken) =>
        {
            await using var transaction = await BeginWriteAsync(connection, cancellationToken);
            await CompleteImportAsync(connection, transaction, stored, rowWritten, cancellationToken);
            await transaction.CommitAsync(cancellationToken);
            return 0;
        }, cancellationToken);

    /// <summary>Removes an import that did not complete: its points and its hidden row.</summary>
    internal Task DeleteImportAsync(long key) =>
        WriteAsync((connection, cancellationToken) => DeleteImportAsync(connection, key, cancellationToken), CancellationToken.None);

    private async Task<int> DeleteImportAsync(DbConnection connection, long key, CancellationToken cancellationToken)
    {
        await using var transaction = await BeginWriteAsync(connection, cancellationToken);
        foreach (var sql in new[] { SqliteQueries.DeleteImportPoints, SqliteQueries.DeleteImport })
        {
            using var delete = Command(connection, transaction, sql).Int64("@key", key);
            await delete.ExecuteAsync(cancellationToken);
        }

        await transaction.CommitAsync(cancellationToken);
        return 0;
    }

    private protected override Task<DbTransaction> BeginSnapshotAsync(DbConnection connection, CancellationToken cancellationToken) =>
        // A deferred transaction pins one WAL snapshot at its first read.
        Task.FromResult<DbTransaction>(((SqliteConnection)connection).BeginTransaction(deferred: true));

    private protected override Task<DbTransaction> BeginWriteAsync(DbConnection connection, CancellationToken cancellationToken) =>
        // IMMEDIATE: the write lock first, so a writer never upgrades a snapshot another process outdated.
        Task.FromResult<DbTransaction>(((SqliteConnection)connection).BeginTransaction(deferred: false));

    private protected override async Task<T> ReadAsync<T>(Func<DbConnection, CancellationToken, Task<T>> read, CancellationToken cancellationToken)
    {
        await using var connection = await OpenAsync(cancellationToken);
        return await read(connection, cancellationToken);
    }

    /// <summary>The writer's prepared statement for <paramref name="sql"/>, its parameters cleared (only on the writer, under <see cref="_writeGate"/>).</summary>
    private protected override StoreCommand Prepared(DbConnection connection, string sql)
    {
        if (!ReferenceEquals(connection, _writer))
        {
            return base.Prepared(connection, sql);
        }

        if (!_statements.TryGetValue(sql, out var statement))
        {
            statement = _writer.CreateCommand();
            statement.CommandText = sql;
            _statements.Add(sql, statement);
        }

        statement.Parameters.Clear();
        return new StoreCommand(statement, Dialect, owned: false);
    }

    public override async ValueTask DisposeAsync()
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
    private protected override async Task<T> WriteAsync<T>(Func<DbConnection, CancellationToken, Task<T>> write, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
        await _writeGate.WaitAsync(cancellationToken);
        T result;
        try
        {
            var writer = _writer ??= await OpenAsync(cancellationToken);
            try
            {
                // SQLite's calls are synchronous (Microsoft.Data.Sqlite has no asynchronous I/O), so
                // the write completes here, inside the gate.
                result = await write(writer, cancellationToken);
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
}
