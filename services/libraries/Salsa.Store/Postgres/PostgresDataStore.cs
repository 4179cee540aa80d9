using System.Data;
using System.Data.Common;
using Microsoft.Extensions.Logging;
using Npgsql;
using Polly;
using Polly.Retry;
using Salsa.Store.Relational;

namespace Salsa.Store.Postgres;

/// <summary>
/// The shared store on PostgreSQL, through one <see cref="NpgsqlDataSource"/> (so Npgsql's own
/// <c>Npgsql</c> traces and metrics cover every call). What it stores and how it answers is the
/// relational core's (<see cref="RelationalDataStore"/>, its SQL in <c>Postgres/Sql</c>: tables in
/// the <c>salsa</c> schema, vectors and artifacts <c>bytea</c>); this class holds what is
/// PostgreSQL's own: the pool, reads that ride out a database briefly out of reach, and points
/// arriving by binary COPY (<see cref="PostgresDatasetImport"/>).
/// </summary>
public sealed partial class PostgresDataStore : RelationalDataStore
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
    private readonly NpgsqlDataSource _dataSource;
    private readonly ResiliencePipeline _reads;

    /// <param name="connectionString">An Npgsql connection string (<c>Host=…;Database=…</c>); see <see cref="DataStoreFactory"/> for URIs.</param>
    /// <param name="loggerFactory">Receives Npgsql's own logs.</param>
    /// <param name="timeProvider">The clock for the times the store sets (a job marked interrupted).</param>
    /// <param name="quota">What each tenant may keep; null for no bound.</param>
    public PostgresDataStore(string connectionString, ILoggerFactory? loggerFactory = null, TimeProvider? timeProvider = null, StorageQuota? quota = null)
        : base(PostgresDialect.Instance, timeProvider, quota)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(connectionString);
        var builder = new NpgsqlDataSourceBuilder(connectionString) { Name = "salsa-store" };
        if (loggerFactory is not null)
        {
            builder.UseLoggerFactory(loggerFactory);
        }

        var settings = builder.ConnectionStringBuilder;
        Location = $"{settings.Host}:{settings.Port}/{settings.Database}";
        _dataSource = builder.Build();
        _reads = ReadRetry(loggerFactory?.CreateLogger<PostgresDataStore>());
    }

    /// <summary>Host, port and database (never the password), for logs.</summary>
    public string Location { get; }

    private protected override string Where => $"The database at {Location}";

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

    [LoggerMessage(Level = LogLevel.Warning, Message = "A store read failed ({Error}); asking again (attempt {Attempt}) in {DelayMs:F0} ms.")]
    private static partial void LogReadRetry(ILogger logger, string? error, int attempt, double delayMs);

    private protected override async Task<T> ReadAsync<T>(Func<DbConnection, CancellationToken, Task<T>> read, CancellationToken cancellationToken) =>
        await _reads.ExecuteAsync(
            static async (state, token) =>
            {
                await using var connection = await state.DataSource.OpenConnectionAsync(token);
                return await state.Read(connection, token);
            },
            (DataSource: _dataSource, Read: read),
            cancellationToken);

    private protected override async Task<T> WriteAsync<T>(Func<DbConnection, CancellationToken, Task<T>> write, CancellationToken cancellationToken)
    {
        await using var connection = await _dataSource.OpenConnectionAsync(cancellationToken);
        return await write(connection, cancellationToken);
    }

    private protected override async Task<DbTransaction> BeginSnapshotAsync(DbConnection connection, CancellationToken cancellationToken) =>
        await ((NpgsqlConnection)connection).BeginTransactionAsync(IsolationLevel.RepeatableRead, cancellationToken);

    private protected override async Task<DbTransaction> BeginWriteAsync(DbConnection connection, CancellationToken cancellationToken) =>
        await ((NpgsqlConnection)connection).BeginTransactionAsync(cancellationToken);

    private protected override async Task<DatasetImport> BeginImportAsync(DatasetInfo stored, CancellationToken cancellationToken) =>
        await PostgresDatasetImport.BeginAsync(this, _dataSource, stored, cancellationToken);

    /// <summary>The dataset's row, in the import's transaction.</summary>
    internal Task InsertImportRowAsync(NpgsqlConnection connection, NpgsqlTransaction transaction, DatasetInfo stored, DatasetContent first, CancellationToken cancellationToken) =>
        InsertDatasetRowAsync(connection, transaction, stored, first, cancellationToken);

    /// <summary>The import's end in its transaction: one tenant's imports complete one at a time from the quota's check to the commit.</summary>
    internal Task FinishImportAsync(NpgsqlConnection connection, NpgsqlTransaction transaction, DatasetInfo stored, bool rowWritten, CancellationToken cancellationToken) =>
        CompleteImportAsync(connection, transaction, stored, rowWritten, cancellationToken);

    public override ValueTask DisposeAsync() => _dataSource.DisposeAsync();
}
