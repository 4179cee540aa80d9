using Microsoft.Extensions.DependencyInjection;

namespace Salsa.Chemistry;

public static class RdkitServiceCollectionExtensions
{
    /// <summary>
    /// RDKit for a service: one <see cref="Rdkit"/> on <paramref name="engines"/> isolates, whose
    /// first engine is made as the service starts (<see cref="RdkitWarmUp"/>) — compiling RDKit's
    /// WebAssembly takes about a second, which the first user would otherwise wait for.
    /// </summary>
    public static IServiceCollection AddRdkit(this IServiceCollection services, Func<IServiceProvider, int> engines)
    {
        ArgumentNullException.ThrowIfNull(engines);
        services.AddSingleton(sp => new Rdkit(engines(sp)));
        services.AddSingleton<RdkitWarmUp>();
        services.AddHostedService(sp => sp.GetRequiredService<RdkitWarmUp>());
        return services;
    }
}
