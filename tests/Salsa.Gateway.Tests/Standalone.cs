using Grpc.Net.Client;
using Salsa.Hosting.Host;

namespace Salsa.Gateway.Tests;

/// <summary>A service started on its own in this process (free ports, the given SQLite store), as a gateway's remote service.</summary>
internal sealed class Standalone(Microsoft.AspNetCore.Builder.WebApplication app, ServicePorts ports) : IAsyncDisposable
{
    public ServicePorts Ports { get; } = ports;

    public GrpcChannel Channel { get; } = GrpcChannel.ForAddress(ports.GrpcAddress);

    public static async Task<Standalone> StartAsync<TService>(string store, CancellationToken token)
        where TService : ISalsaService
    {
        var ports = new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
        var settings = new Dictionary<string, string?>(ServiceHostSettings.PortSettings(ports)) { ["Store:SqlitePath"] = store, ["Logging:LogLevel:Default"] = "Warning" };
        var app = SalsaServiceHost.Create<TService>(new ServiceHostSettings { Settings = settings, LoadAppSettings = false });
        await app.StartAsync(token);
        return new Standalone(app, ports);
    }

    public async ValueTask DisposeAsync()
    {
        Channel.Dispose();
        await app.StopAsync(CancellationToken.None);
        await app.DisposeAsync();
    }
}
