using Microsoft.Extensions.Hosting;
using Orleans.Configuration;

namespace Salsa.Cluster;

/// <summary>Where a silo listens and which cluster it joins.</summary>
public sealed record SiloSettings
{
    /// <summary>Silos with the same cluster id form one cluster.</summary>
    public string ClusterId { get; init; } = "salsa";

    public string ServiceId { get; init; } = "salsa";

    /// <summary>PostgreSQL for membership; null runs a single silo on localhost clustering (the embedded default).</summary>
    public string? ConnectionString { get; init; }

    /// <summary>The address other silos reach this one at (its namespace's or host's address).</summary>
    public System.Net.IPAddress Address { get; init; } = System.Net.IPAddress.Loopback;

    public int SiloPort { get; init; } = 11111;

    public int GatewayPort { get; init; } = 30000;
}

/// <summary>A process becomes a silo of the Salsa cluster.</summary>
public static class SiloHosting
{
    public const string AdoNetInvariant = "Npgsql";

    public static IHostApplicationBuilder AddSalsaSilo(this IHostApplicationBuilder builder, SiloSettings settings)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentNullException.ThrowIfNull(settings);
        builder.UseOrleans(silo =>
        {
            silo.Services.AddPlacementDirector<Partitions.PartitionPlacement, Partitions.PartitionPlacementDirector>();
            silo.Configure<ClusterOptions>(o => (o.ClusterId, o.ServiceId) = (settings.ClusterId, settings.ServiceId));
            if (settings.ConnectionString is { } connectionString)
            {
                silo.UseAdoNetClustering(o => (o.Invariant, o.ConnectionString) = (AdoNetInvariant, connectionString));
                silo.AddAdoNetGrainStorageAsDefault(o => (o.Invariant, o.ConnectionString) = (AdoNetInvariant, connectionString));
                silo.UseAdoNetReminderService(o => (o.Invariant, o.ConnectionString) = (AdoNetInvariant, connectionString));
                silo.ConfigureEndpoints(settings.Address, settings.SiloPort, settings.GatewayPort, listenOnAnyHostAddress: false);
            }
            else
            {
                silo.UseLocalhostClustering(settings.SiloPort, settings.GatewayPort);
                silo.AddMemoryGrainStorageAsDefault();
                silo.UseInMemoryReminderService();
            }
        });
        return builder;
    }
}
