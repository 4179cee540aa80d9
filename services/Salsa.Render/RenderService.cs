using Microsoft.Extensions.Options;
using Salsa.Chemistry;
using Salsa.Contracts.Clients;
using Salsa.Hosting;
using Salsa.Hosting.Host;
using Salsa.Settings;

namespace Salsa.Render;

/// <summary>Census cluster maps (SVG, PNG, GeoJSON), MDS scatter plots and molecule grids (RDKit depictions) as a service.</summary>
public sealed class RenderService : ISalsaService
{
    public static string Name => ServiceNames.Render;

    public static void AddServices(WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.AddJobs().AddDatasets();
        // RDKit draws molecules (its engines start on first use).
        builder.Services.AddSalsaOptions<RdkitOptions>(RdkitOptions.Section);
        builder.Services.AddSingleton(services => new Rdkit(services.GetRequiredService<IOptions<ServiceLimits>>().Value.Ranks, options: services.GetRequiredService<IOptions<RdkitOptions>>().Value));
        builder.Services.AddSingleton<RenderJobs>();
        builder.Services.AddSingleton<RenderGrpcService>();
    }

    public static void MapEndpoints(WebApplication app)
    {
        app.MapJobs().MapDatasets();
        app.MapRenderApi();
        app.MapGrpcService<RenderGrpcService>();
    }
}
