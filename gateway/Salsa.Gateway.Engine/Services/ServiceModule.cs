using Salsa.Hosting.Host;

namespace Salsa.Gateway.Services;

/// <summary>A service the gateway can host in its own process (the embedded default).</summary>
public sealed record ServiceModule(string Name, Func<ServiceHostSettings, WebApplication> Create)
{
    public static ServiceModule Of<TService>()
        where TService : ISalsaService =>
        new(TService.Name, SalsaServiceHost.Create<TService>);
}
