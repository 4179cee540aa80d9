using Microsoft.Extensions.Options;
using Salsa.Chemistry;
using Salsa.Contracts.Clients;
using Salsa.Hosting;
using Salsa.Hosting.Clustering.Annealing;
using Salsa.Hosting.Clustering.Grid;
using Salsa.Hosting.Host;
using Salsa.Settings;

namespace Salsa.Fingerprints;

/// <summary>Fingerprint clustering as a service: Taylor–Butina, binary deterministic annealing and cluster-pruned top-k Tanimoto search.</summary>
public sealed class FingerprintsService : ISalsaService
{
    public static string Name => ServiceNames.Fingerprints;

    public static void AddServices(WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.AddJobs().AddDatasets().AddGridCompute();
        var services = builder.Services;
        services.AddSalsaOptions<FingerprintsOptions>(FingerprintsOptions.Section);
        services.AddSingleton<ButinaJobs>();
        services.AddSingleton<AnnealingJobs>();
        services.AddSingleton<BinaryAnnealingJobs>();
        services.AddSingleton<SearchDispatcher>();
        services.AddSingleton<SearchIndexCache>();
        // RDKit fingerprints a SMILES query (its first engine made as the service starts).
        services.AddSalsaOptions<RdkitOptions>(RdkitOptions.Section);
        services.AddRdkit(sp => sp.GetRequiredService<IOptions<ServiceLimits>>().Value.Ranks);
        services.AddSingleton<FingerprintSearch>();
        services.AddSingleton<FingerprintsGrpcService>();
    }

    public static void MapEndpoints(WebApplication app)
    {
        app.MapJobs().MapDatasets();
        app.MapFingerprintsApi();
        app.MapGrpcService<FingerprintsGrpcService>();
    }
}
