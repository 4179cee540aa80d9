using Salsa.Grpc;
using Salsa.Hosting.Host;

namespace Salsa.Gateway.Embedded;

/// <summary>
/// The embedded default: services hosted in this process, each on its own loopback ports exactly
/// as when it runs alone (same host code, Kestrel, middleware), sharing one store. Calls to them
/// are real gRPC calls over loopback, so hops are measured as they would be between processes.
/// </summary>
public sealed class EmbeddedServices(IReadOnlyDictionary<string, string?> settings) : IAsyncDisposable
{
    private readonly List<WebApplication> _apps = [];
    private readonly Dictionary<string, (ServicePorts Ports, GrpcChannel Channel)> _services = new(StringComparer.Ordinal);

    /// <summary>Starts <typeparamref name="TService"/> on free loopback ports.</summary>
    public async Task StartAsync<TService>(CancellationToken cancellationToken)
        where TService : ISalsaService
    {
        var ports = new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
        var all = new Dictionary<string, string?>(settings);
        foreach (var (key, value) in ServiceHostSettings.PortSettings(ports))
        {
            all[key] = value;
        }

        var app = SalsaServiceHost.Create<TService>(new ServiceHostSettings { Settings = all, LoadAppSettings = false });
        await app.StartAsync(cancellationToken);
        _apps.Add(app);
        _services[TService.Name] = (ports, GrpcChannel.ForAddress(ports.GrpcAddress));
    }

    /// <summary>The gRPC channel of a started service.</summary>
    public GrpcChannel Channel(string service) =>
        _services.TryGetValue(service, out var s) ? s.Channel : throw new InvalidOperationException($"The {service} service is not running in this process.");

    public ServicePorts Ports(string service) => _services[service].Ports;

    public async ValueTask DisposeAsync()
    {
        foreach (var (_, channel) in _services.Values)
        {
            channel.Dispose();
        }

        foreach (var app in Enumerable.Reverse(_apps))
        {
            await app.StopAsync();
            await app.DisposeAsync();
        }
    }
}
