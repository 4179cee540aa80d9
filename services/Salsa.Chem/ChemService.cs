using Microsoft.Extensions.Options;
using Salsa.Chemistry;
using Salsa.Contracts.Clients;
using Salsa.Hosting;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Host;
using Salsa.Settings;

namespace Salsa.Chem;

/// <summary>Compound sets as datasets: SMILES and ids, and one fingerprint dataset per named type.</summary>
public sealed class ChemService : ISalsaService
{
    public static string Name => ServiceNames.Chem;

    public static void AddServices(WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.AddDatasets();
        builder.AddShippedData();
        // RDKit on as many isolates as the service has compute ranks, its first made as the service starts.
        builder.Services.AddSalsaOptions<RdkitOptions>(RdkitOptions.Section);
        builder.Services.AddRdkit(services => services.GetRequiredService<IOptions<ServiceLimits>>().Value.Ranks);
        builder.Services.AddSingleton<CompoundCatalog>();
        builder.Services.AddSingleton<ChemGrpcService>();
    }

    public static void MapEndpoints(WebApplication app)
    {
        app.MapDatasets();
        app.MapChemApi();
        app.MapGrpcService<ChemGrpcService>();
    }
}
