using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Hosting;
using Orleans.Configuration;

namespace Salsa.Grid;

/// <summary>A process that is not a silo talks to the cluster as an Orleans client.</summary>
public static class ClusterClientHosting
{
    /// <summary>
    /// Joins the cluster of <paramref name="settings"/> as a client: through its PostgreSQL membership,
    /// or — without a connection string — the single localhost silo whose gateway listens on
    /// <see cref="SiloSettings.GatewayPort"/> (the embedded default, where the gateway's process is the silo).
    /// Started before any silo, it waits for one (<see cref="ClusterConnectionRetry"/>) rather than failing.
    /// </summary>
    public static IHostApplicationBuilder AddSalsaClusterClient(this IHostApplicationBuilder builder, SiloSettings settings)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentNullException.ThrowIfNull(settings);
        builder.UseOrleansClient(client =>
        {
            client.Configure<ClusterOptions>(o => (o.ClusterId, o.ServiceId) = (settings.ClusterId, settings.ServiceId));
            client.Services.SerializeStoreExceptions();
            client.Services.AddGridSerialization();
            client.Services.AddSingleton<IClientConnectionRetryFilter, ClusterConnectionRetry>();
            client.Services.TryAddSingleton(TimeProvider.System);
            if (settings.Certificate is { } certificate)
            {
                client.UseClusterTls(certificate);
            }

            if (settings.ConnectionString is { } connectionString)
            {
                client.UseAdoNetClustering(o => (o.Invariant, o.ConnectionString) = (SiloHosting.AdoNetInvariant, connectionString));
                client.Configure<GatewayOptions>(o => o.GatewayListRefreshPeriod = TimeSpan.FromSeconds(5));
            }
            else
            {
                client.UseLocalhostClustering(settings.GatewayPort, settings.ServiceId, settings.ClusterId);
            }
        });
        return builder;
    }
}
