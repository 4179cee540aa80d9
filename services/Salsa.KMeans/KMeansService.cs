using Salsa.Contracts.Clients;
using Salsa.Hosting;
using Salsa.Hosting.Clustering.Grid;
using Salsa.Hosting.Host;

namespace Salsa.KMeans;

/// <summary>Weighted k-means of dense or binary datasets, as a service.</summary>
public sealed class KMeansService : ISalsaService
{
    public static string Name => ServiceNames.KMeans;

    public static void AddServices(WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.AddJobs().AddDatasets().AddGridCompute();
        builder.Services.AddSingleton<KMeansJobs>();
        builder.Services.AddSingleton<KMeansGrpcService>();
    }

    public static void MapEndpoints(WebApplication app)
    {
        app.MapJobs().MapDatasets();
        app.MapKMeansApi();
        app.MapGrpcService<KMeansGrpcService>();
    }
}
