using Salsa.Contracts.Clients;
using Salsa.Hosting;
using Salsa.Hosting.Host;

namespace Salsa.Mds;

/// <summary>Weighted SMACOF multidimensional scaling as a service, for cluster medoids or samples of up to about 10,000 items.</summary>
public sealed class MdsService : ISalsaService
{
    public static string Name => ServiceNames.Mds;

    public static void AddServices(WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.AddJobs().AddDatasets();
        builder.Services.AddSingleton<MdsJobs>();
        builder.Services.AddSingleton<MdsGrpcService>();
    }

    public static void MapEndpoints(WebApplication app)
    {
        app.MapJobs().MapDatasets();
        app.MapMdsApi();
        app.MapGrpcService<MdsGrpcService>();
    }
}
