using Salsa.Annealing;
using Salsa.Census;
using Salsa.Chem;
using Salsa.Contracts.Operations;
using Salsa.Fingerprints;
using Salsa.Hosting;
using Salsa.Hosting.Host;
using Salsa.KMeans;
using Salsa.Mds;
using Salsa.Render;

namespace Salsa.Gateway.Services;

/// <summary>A service the gateway composes: how to host it in this process and the operations it declares.</summary>
public sealed record ServiceModule(string Name, Func<ServiceHostSettings, WebApplication> Create, Func<ServiceLimits, IReadOnlyList<OperationSpec>> Operations)
{
    public static ServiceModule Of<TService>()
        where TService : ISalsaService =>
        new(TService.Name, SalsaServiceHost.Create<TService>, TService.Operations);
}

/// <summary>The one list of the services the gateway knows: the directory hosts them, the catalog asks them for their operations.</summary>
public static class HostedServices
{
    public static IReadOnlyList<ServiceModule> All { get; } =
    [
        ServiceModule.Of<CensusService>(), ServiceModule.Of<ChemService>(), ServiceModule.Of<AnnealingService>(), ServiceModule.Of<KMeansService>(),
        ServiceModule.Of<FingerprintsService>(), ServiceModule.Of<MdsService>(), ServiceModule.Of<RenderService>(),
    ];
}
