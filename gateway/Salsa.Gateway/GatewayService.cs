using Salsa.Gateway.Services;
using Salsa.Hosting.Host;

namespace Salsa.Gateway;

/// <summary>
/// The workflow gateway as a service: the run engine (<see cref="RunEngine"/>) with the services it
/// hosts in its own process when they are not addressed (<see cref="HostedServices"/>).
/// </summary>
public sealed class GatewayService : ISalsaService
{
    public static string Name => RunEngine.Name;

    public static void AddServices(WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.AddRunEngine();
        builder.Services.AddSingleton(HostedServices.Embedded);
    }

    public static void MapEndpoints(WebApplication app) => app.MapRunEngine();
}
