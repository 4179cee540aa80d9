using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Salsa.Settings;

namespace Salsa.Store;

public static class DataStoreServiceCollectionExtensions
{
    /// <summary>The connection string name: <c>ConnectionStrings:salsa</c>.</summary>
    public const string ConnectionStringName = "salsa";

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
        services.BindSalsaOptions<StoreOptions>(configuration, StoreOptions.Section); // fails at registration, not at first use, on a connection string not understood
        services.TryAddSingleton(sp => DataStoreFactory.Create(
            sp.GetRequiredService<StoreOptions>(), sp.GetService<ILoggerFactory>(), sp.GetService<TimeProvider>()));
        services.AddHostedService<DataStoreInitializer>();
        return services;
    }
}
