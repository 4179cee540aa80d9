using Salsa.Contracts.Clients;
using Salsa.Hosting;
using Salsa.Hosting.Clustering.Annealing;
using Salsa.Hosting.Clustering.Grid;
using Salsa.Hosting.Host;

namespace Salsa.Annealing;

/// <summary>Deterministic-annealing clustering of dense or binary datasets, as a service.</summary>
public sealed class AnnealingService : ISalsaService
{
    public static string Name => ServiceNames.Annealing;

    public static void AddServices(WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.AddJobs().AddDatasets().AddGridCompute();
        builder.Services.AddSingleton<AnnealingJobs>();
        builder.Services.AddSingleton<AnnealingGrpcService>();
    }

    public static void MapEndpoints(WebApplication app)
    {
        app.MapJobs().MapDatasets();
        app.MapAnnealingApi();
        app.MapGrpcService<AnnealingGrpcService>();
    }
}
