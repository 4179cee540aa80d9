using Salsa.Annealing;
using Salsa.Census;
using Salsa.Chem;
using Salsa.Fingerprints;
using Salsa.KMeans;
using Salsa.Mds;
using Salsa.Render;

namespace Salsa.Gateway.Services;

/// <summary>
/// The services the gateway hosts in its own process (the embedded default): the one place of the
/// gateway that references them. Their operations are Salsa.Operations'; the run engine reaches them
/// through <see cref="EmbeddedServices"/>.
/// </summary>
public static class HostedServices
{
    /// <summary>In <c>ServiceNames.All</c>'s order (the pinned ports' order).</summary>
    public static IReadOnlyList<ServiceModule> All { get; } =
    [
        ServiceModule.Of<CensusService>(), ServiceModule.Of<ChemService>(), ServiceModule.Of<AnnealingService>(), ServiceModule.Of<KMeansService>(),
        ServiceModule.Of<FingerprintsService>(), ServiceModule.Of<MdsService>(), ServiceModule.Of<RenderService>(),
    ];

    public static EmbeddedServices Embedded { get; } = new(All);
}
