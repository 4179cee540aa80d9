using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;

namespace Salsa.Store;

public static class DataStoreServiceCollectionExtensions
{
    /// <summary>The connection string name: <c>ConnectionStrings:salsa</c>.</summary>
    public const string ConnectionStringName = "salsa";

    /// <summary>The SQLite path key: <c>Store:SqlitePath</c>.</summary>
    public const string SqlitePathKey = "Store:SqlitePath";

    /// <summary>
    /// Registers the shared <see cref="IDataStore"/> (a singleton, disposed with the container)
    /// chosen from <c>ConnectionStrings:salsa</c> and <c>Store:SqlitePath</c> (default
    /// <c>&lt;current directory&gt;/.salsa/salsa.db</c>) by <see cref="DataStoreFactory"/>'s rule, and a
    /// hosted service that initialises it when the host starts, before the services that follow it.
    /// </summary>
    public static IServiceCollection AddDataStore(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        var path = configuration[SqlitePathKey];
        var options = new StoreOptions
        {
            ConnectionString = configuration.GetConnectionString(ConnectionStringName),
            SqlitePath = string.IsNullOrWhiteSpace(path) ? StoreOptions.DefaultSqlitePath : Path.GetFullPath(path),
        };

        // Fail at registration, not at first use, when the connection string is not understood.
        DataStoreFactory.ThrowIfUnrecognised(options.ConnectionString);

        services.TryAddSingleton(options);
        services.TryAddSingleton(sp => DataStoreFactory.Create(
            sp.GetRequiredService<StoreOptions>(), sp.GetService<ILoggerFactory>(), sp.GetService<TimeProvider>()));
        services.AddHostedService<DataStoreInitializer>();
        return services;
    }
}
