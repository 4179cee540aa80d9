using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Salsa.Store.Postgres;
using Salsa.Store.Sqlite;

namespace Salsa.Store;

/// <summary>Creates the schema when the host starts (hosted services start in registration order, so services registered later find it ready).</summary>
internal sealed partial class DataStoreInitializer(IDataStore store, ILogger<DataStoreInitializer> logger) : IHostedService
{
    public async Task StartAsync(CancellationToken cancellationToken)
    {
        switch (store)
        {
            case SqliteDataStore sqlite:
                LogSqlite(logger, sqlite.Path);
                break;
            case PostgresDataStore postgres:
                LogPostgres(logger, postgres.Location);
                break;
        }

        await store.InitializeAsync(cancellationToken);
    }

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    [LoggerMessage(Level = LogLevel.Information, Message = "Data store: SQLite file {Path}")]
    private static partial void LogSqlite(ILogger logger, string path);

    [LoggerMessage(Level = LogLevel.Information, Message = "Data store: PostgreSQL {Location}")]
    private static partial void LogPostgres(ILogger logger, string location);
}
