using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Salsa.Chemistry;

public static class RdkitServiceCollectionExtensions
{
    /// <summary>
    /// RDKit for a service: one <see cref="Rdkit"/> on <paramref name="engines"/> isolates, making
    /// fingerprints with the RDKit <c>Salsa:Rdkit:Engine</c> chooses (<see cref="RdkitOptions"/>, bound
    /// by the service as it binds every section; the defaults where it binds none), whose
    /// first engine is made as the service starts (<see cref="RdkitWarmUp"/>) — compiling RDKit's
    /// WebAssembly takes about a second, which the first user would otherwise wait for. A service
    /// asked for the system's RDKit where it is missing does not start.
    /// </summary>
    public static IServiceCollection AddRdkit(this IServiceCollection services, Func<IServiceProvider, int> engines)
    {
        ArgumentNullException.ThrowIfNull(engines);
        services.AddSingleton(sp => new Rdkit(engines(sp), options: sp.GetService<IOptions<RdkitOptions>>()?.Value));
        services.AddSingleton<RdkitWarmUp>();
        services.AddHostedService(sp => sp.GetRequiredService<RdkitWarmUp>());
        return services;
    }
}
