using System.Data.Common;
using System.Globalization;

namespace Salsa.Store.Relational;

/// <summary>
/// The store on a relational database, written once for every vendor: the records' mapping, the
/// datasets', jobs', artifacts' and keys' operations, migrations and the quota, over ADO.NET's
/// <see cref="DbConnection"/>. What differs is each vendor's and stays beside it, in the shape of
/// Orleans' ADO.NET providers: its SQL (<see cref="StoreQueries"/>, its migration scripts), how it
/// keeps ids, times and doubles (<see cref="StoreDialect"/>), how connections are had for a read and
/// for a write (SQLite's one writer behind a gate; PostgreSQL's pool, reads retried through an
/// outage) and how points are bulk-loaded (<see cref="DatasetImport"/>: SQLite's prepared insert,
/// PostgreSQL's binary COPY). The contract tests run every case on both.
/// </summary>
public abstract partial class RelationalDataStore : IDataStore
{
    /// <summary>Rows between two checks of a read's cancellation token.</summary>
    private const int CancellationCheckInterval = 4096;

    private protected RelationalDataStore(StoreDialect dialect, TimeProvider? timeProvider, StorageQuota? quota)
    {
        PointVectors.EnsureLittleEndian();
        Dialect = dialect;
        Clock = timeProvider ?? TimeProvider.System;
        Quota = quota;
    }

    public StorageQuota? Quota { get; }

    private protected StoreDialect Dialect { get; }

    private protected StoreQueries Queries => Dialect.Queries;

    /// <summary>The clock for the times the store sets itself (a job marked interrupted, an import begun).</summary>
    private protected TimeProvider Clock { get; }

    /// <summary>Where the data is, for messages: a file, or host, port and database (never a password).</summary>
    private protected abstract string Where { get; }

    /// <summary>Runs a read on a connection of the vendor's choosing (asked again where the vendor rides out outages).</summary>
    private protected abstract Task<T> ReadAsync<T>(Func<DbConnection, CancellationToken, Task<T>> read, CancellationToken cancellationToken);

    /// <summary>Runs a write on a connection of the vendor's choosing (never asked again: whether a failed write landed is not known).</summary>
    private protected abstract Task<T> WriteAsync<T>(Func<DbConnection, CancellationToken, Task<T>> write, CancellationToken cancellationToken);

    /// <summary>A transaction that reads one snapshot of the database.</summary>
    private protected abstract Task<DbTransaction> BeginSnapshotAsync(DbConnection connection, CancellationToken cancellationToken);

    /// <summary>A transaction for writes that must land together.</summary>
    private protected abstract Task<DbTransaction> BeginWriteAsync(DbConnection connection, CancellationToken cancellationToken);

    /// <summary>An import of <paramref name="stored"/>'s points by the vendor's bulk path.</summary>
    private protected abstract Task<DatasetImport> BeginImportAsync(DatasetInfo stored, CancellationToken cancellationToken);

    /// <summary>What the vendor does before the schema is read (a file's permissions, its journal mode).</summary>
    private protected virtual Task PrepareAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>What the vendor does once the schema is current (removing imports a crash left).</summary>
    private protected virtual Task InitializedAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public abstract ValueTask DisposeAsync();

    public async Task InitializeAsync(CancellationToken cancellationToken = default)
    {
        await PrepareAsync(cancellationToken);
        await WriteAsync(async (connection, cancellationToken) =>
        {
            await using var transaction = await BeginWriteAsync(connection, cancellationToken);
            if (Queries.LockSchema is { } gate)
            {
                using var locked = Command(connection, transaction, gate);
                await locked.ExecuteAsync(cancellationToken);
            }

            var found = await SchemaVersionAsync(connection, transaction, cancellationToken);
            if (found > StoreSchema.Version)
            {
                throw new NotSupportedException($"{Where} has schema version {found}; this build of Salsa.Store knows versions up to {StoreSchema.Version}.");
            }

            if (found < StoreSchema.Version)
            {
                // Each version's script in turn, and the version they reach, in one transaction.
                foreach (var step in Dialect.Migrations.Skip((int)found))
                {
                    using var migrate = Command(connection, transaction, step);
                    await migrate.ExecuteAsync(cancellationToken);
                }

                using var record = Command(connection, transaction, Queries.SetSchemaVersion.Replace("{version}", StoreSchema.Version.ToString(CultureInfo.InvariantCulture), StringComparison.Ordinal));
                await record.ExecuteAsync(cancellationToken);
            }

            await transaction.CommitAsync(cancellationToken);
            return 0;
        }, cancellationToken);
        await InitializedAsync(cancellationToken);
    }

    private async Task<long> SchemaVersionAsync(DbConnection connection, DbTransaction transaction, CancellationToken cancellationToken)
    {
        if (Queries.SchemaKept is { } kept)
        {
            using var exists = Command(connection, transaction, kept);
            if (!Convert.ToBoolean(await exists.ScalarAsync(cancellationToken), CultureInfo.InvariantCulture))
            {
                return 0;
            }
        }

        using var version = Command(connection, transaction, Queries.SchemaVersion);
        return Convert.ToInt64(await version.ScalarAsync(cancellationToken), CultureInfo.InvariantCulture);
    }

    /// <summary>A command for <paramref name="sql"/> on <paramref name="connection"/>, in <paramref name="transaction"/> when one is given.</summary>
    private protected StoreCommand Command(DbConnection connection, DbTransaction? transaction, string sql)
    {
        var command = connection.CreateCommand();
        command.Transaction = transaction;
        command.CommandText = sql;
        return new StoreCommand(command, Dialect, owned: true);
    }

    /// <summary>
    /// A command for a statement run on every call of a hot path (a job's insert and update), which
    /// a vendor may keep prepared on a connection it holds; by default, <see cref="Command"/>.
    /// </summary>
    private protected virtual StoreCommand Prepared(DbConnection connection, string sql) => Command(connection, null, sql);

    public Task<StorageUsage> GetUsageAsync(string tenant, CancellationToken cancellationToken = default)
    {
        Tenants.Require(tenant);
        return ReadAsync((connection, cancellationToken) => UsageAsync(connection, null, tenant, excluding: null, cancellationToken), cancellationToken);
    }

    private async Task<StorageUsage> UsageAsync(DbConnection connection, DbTransaction? transaction, string tenant, Guid? excluding, CancellationToken cancellationToken)
    {
        using var usage = Command(connection, transaction, Queries.TenantUsage).Text("@tenant", tenant).Id("@id", excluding);
        await using var reader = await usage.ReaderAsync(cancellationToken);
        await reader.ReadAsync(cancellationToken);
        return new StorageUsage(Convert.ToInt32(reader.GetValue(0), CultureInfo.InvariantCulture), Convert.ToInt64(reader.GetValue(1), CultureInfo.InvariantCulture));
    }

    /// <summary>
    /// Refuses <paramref name="stored"/> when its tenant's finished datasets leave no room for it under
    /// <see cref="Quota"/>. Inside the transaction that makes it visible, after the vendor's tenant lock
    /// (or the write lock its transaction holds), so imports racing each other cannot both pass.
    /// </summary>
    private async Task RequireRoomAsync(DbConnection connection, DbTransaction transaction, DatasetInfo stored, CancellationToken cancellationToken)
    {
        if (Quota is not { } quota)
        {
            return;
        }

        await LockTenantAsync(connection, transaction, "salsa.quota", stored.Tenant, cancellationToken);
        quota.Check(stored.Tenant, await UsageAsync(connection, transaction, stored.Tenant, excluding: stored.Id, cancellationToken), stored.Bytes);
    }

    /// <summary>Makes the tenant's other transactions that lock <paramref name="what"/> wait for this one's end, where the vendor needs a lock for it.</summary>
    private async Task LockTenantAsync(DbConnection connection, DbTransaction transaction, string what, string tenant, CancellationToken cancellationToken)
    {
        if (Queries.LockTenant is { } gate)
        {
            using var locked = Command(connection, transaction, gate).Text("@what", what).Text("@tenant", tenant);
            await locked.ExecuteAsync(cancellationToken);
        }
    }

    /// <summary>Runs <paramref name="command"/>, turning a unique key's violation into the <see cref="InvalidOperationException"/> the contract names.</summary>
    private async Task<object?> ExecuteUniqueAsync(StoreCommand command, string duplicate, CancellationToken cancellationToken)
    {
        try
        {
            return await command.ScalarAsync(cancellationToken);
        }
        catch (DbException e) when (Dialect.IsUniqueViolation(e))
        {
            throw new InvalidOperationException(duplicate, e);
        }
    }
}
