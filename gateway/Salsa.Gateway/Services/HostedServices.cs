using Salsa.Annealing;
using Salsa.Census;
using Salsa.Chem;
using Salsa.Fingerprints;
using Salsa.Hosting.Host;
using Salsa.KMeans;
using Salsa.Mds;
using Salsa.Render;

namespace Salsa.Gateway.Services;

/// <summary>A service the gateway can host in its own process (the embedded default).</summary>
public sealed record ServiceModule(string Name, Func<ServiceHostSettings, WebApplication> Create)
{
    public static ServiceModule Of<TService>()
        where TService : ISalsaService =>
        new(TService.Name, SalsaServiceHost.Create<TService>);
}

/// <summary>The one list of the services the gateway hosts in its own process; their operations are Salsa.Operations'.</summary>
public static class HostedServices
{
    public static IReadOnlyList<ServiceModule> All { get; } =
    [
        ServiceModule.Of<CensusService>(), ServiceModule.Of<ChemService>(), ServiceModule.Of<AnnealingService>(), ServiceModule.Of<KMeansService>(),
        ServiceModule.Of<FingerprintsService>(), ServiceModule.Of<MdsService>(), ServiceModule.Of<RenderService>(),
    ];
}
