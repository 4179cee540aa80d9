using Microsoft.AspNetCore.Builder;

namespace Salsa.Hosting.Host;

/// <summary>
/// One Salsa service: its name, what it adds to the container and what it maps. The same service
/// runs as its own process (its Program.cs), inside the gateway's embedded host, or in a test, always
/// through <see cref="SalsaServiceHost"/>.
/// </summary>
public interface ISalsaService
{
    /// <summary>Lower-case name: the job records' service, the telemetry service name, the config key.</summary>
    static abstract string Name { get; }

    /// <summary>The loopback ports of a standalone run (also declared in the service's appsettings.json).</summary>
    static abstract ServicePorts DefaultPorts { get; }

    static abstract void AddServices(WebApplicationBuilder builder);

    static abstract void MapEndpoints(WebApplication app);
}

/// <summary>A service's two Kestrel endpoints: HTTP/1.1 for REST, h2c for gRPC.</summary>
public sealed record ServicePorts(int Rest, int Grpc)
{
    public Uri RestAddress => new($"http://127.0.0.1:{Rest}");

    public Uri GrpcAddress => new($"http://127.0.0.1:{Grpc}");

    /// <summary>A loopback port free right now (the OS's choice), for services started on the fly.</summary>
    public static int NextFreeLoopbackPort()
    {
        using var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        listener.Start();
        return ((System.Net.IPEndPoint)listener.LocalEndpoint).Port;
    }
}
