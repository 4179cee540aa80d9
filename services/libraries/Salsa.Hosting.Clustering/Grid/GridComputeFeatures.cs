using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Salsa.Grid;
using Salsa.Hosting.Host;
using Salsa.Settings;

namespace Salsa.Hosting.Clustering.Grid;

public static class GridComputeFeatures
{
    /// <summary>
    /// With <c>Cluster:Enabled</c>, makes this service's process a silo (<see cref="SiloHosting.Settings"/>;
    /// a single localhost silo on free ports when there is neither a PostgreSQL connection string nor
    /// a <c>Cluster:SiloPort</c>) — or, with <c>Cluster:Role</c> = <c>Client</c>, a client of the cluster's
    /// silos (through PostgreSQL membership, or the localhost silo at <c>Cluster:GatewayPort</c>) — and
    /// registers <see cref="GridCompute"/> and the <see cref="SiloSettings"/> in effect; otherwise nothing.
    /// The section is bound once (<see cref="GridOptions"/>, injected).
    /// </summary>
    public static WebApplicationBuilder AddGridCompute(this WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        var grid = builder.Services.BindSalsaOptions<GridOptions>(builder.Configuration, SiloHosting.Section);
        if (!grid.Enabled)
        {
            return builder;
        }

        var settings = SiloHosting.Settings(grid);
        if (grid.Role == GridRole.Client)
        {
            builder.AddSalsaClusterClient(settings);
        }
        else
        {
            if (settings.ConnectionString is null && grid.SiloPort is null)
            {
                settings = settings with { SiloPort = ServicePorts.NextFreeLoopbackPort(), GatewayPort = ServicePorts.NextFreeLoopbackPort() };
            }

            builder.AddSalsaSilo(settings);
        }

        builder.Services.AddSingleton(settings);
        builder.Services.AddSalsaOptions<PartitionLayout>(SiloHosting.Section);
        builder.Services.AddSingleton<GridCompute>();
        return builder;
    }
}
