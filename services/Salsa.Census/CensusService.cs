using Salsa.Contracts.Clients;
using Salsa.Hosting;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Host;

namespace Salsa.Census;

/// <summary>US Census 2020 block groups as datasets: import, select, project.</summary>
public sealed class CensusService : ISalsaService
{
    public static string Name => ServiceNames.Census;

    public static void AddServices(WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.AddDatasets();
        builder.AddShippedData();
        builder.Services.AddSingleton<CensusCatalog>();
        builder.Services.AddSingleton<CensusGrpcService>();
    }

    public static void MapEndpoints(WebApplication app)
    {
        app.MapDatasets();
        app.MapCensusApi();
        app.MapGrpcService<CensusGrpcService>();
    }
}
