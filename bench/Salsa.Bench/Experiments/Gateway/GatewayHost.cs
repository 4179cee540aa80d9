using System.Globalization;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Salsa.Gateway;
using Salsa.Gateway.Runs;
using Salsa.Gateway.Services;
using Salsa.Hosting.Host;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Bench.Experiments.Gateway;

/// <summary>
/// The workflow gateway hosted in this process the way its CLI hosts it: the real host on free
/// loopback ports, its own SQLite store in a temporary folder, logs at Warning, the run limits it is
/// given, and its services embedded (started on first use) over the same store.
/// </summary>
public sealed class GatewayHost : IAsyncDisposable
{
    private readonly WebApplication _app;
    private readonly TemporaryDirectory _directory;

    private GatewayHost(WebApplication app, TemporaryDirectory directory, ServicePorts ports)
    {
        _app = app;
        _directory = directory;
        Ports = ports;
    }

    public ServicePorts Ports { get; }

    /// <summary>The runs, called in this process as the one user of a gateway without authentication: asking makes the calling flow act for the tenant <c>local</c>.</summary>
    public RunManager Runs
    {
        get
        {
            Salsa.Hosting.Security.CallerTenant.Enter(Tenants.Local);
            return _app.Services.GetRequiredService<RunManager>();
        }
    }

    public ServiceDirectory Services => _app.Services.GetRequiredService<ServiceDirectory>();

    public IDataStore Store => _app.Services.GetRequiredService<IDataStore>();

    /// <summary>
    /// Starts a gateway whose runs are bounded by <c>Gateway:Runs:Concurrent</c> and <c>QueueDepth</c>, all of them the one
    /// tenant's to use; <paramref name="writeBehind"/> sets <c>Gateway:Runs:WriteBehind</c> (else its default).
    /// </summary>
    public static async Task<GatewayHost> StartAsync(int concurrent, int queueDepth, CancellationToken cancellationToken, TimeSpan? writeBehind = null)
    {
        var directory = new TemporaryDirectory("salsa-bench-gateway-");
        var ports = new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
        var settings = new Dictionary<string, string?>(ServiceHostSettings.PortSettings(ports))
        {
            ["Store:SqlitePath"] = directory.Combine("salsa.db"),
            ["Logging:LogLevel:Default"] = "Warning",
            [$"{RunLimits.Section}:Concurrent"] = concurrent.ToString(CultureInfo.InvariantCulture),
            [$"{RunLimits.Section}:QueueDepth"] = queueDepth.ToString(CultureInfo.InvariantCulture),
            // Every submitter is the one local tenant: its share is the whole gateway.
            [$"{RunLimits.Section}:MaxRunningPerTenant"] = concurrent.ToString(CultureInfo.InvariantCulture),
            [$"{RunLimits.Section}:MaxQueuedPerTenant"] = queueDepth.ToString(CultureInfo.InvariantCulture),
        };
        if (writeBehind is { } delay)
        {
            settings[$"{RunLimits.Section}:{nameof(RunLimits.WriteBehind)}"] = delay.ToString("c", CultureInfo.InvariantCulture);
        }

        return await StartAsync(directory, ports, settings, cancellationToken);
    }

    /// <summary>
    /// Starts a gateway with <paramref name="settings"/> over the defaults (its store, unless they
    /// name one: a SQLite file in a temporary folder; logs at Warning).
    /// </summary>
    public static Task<GatewayHost> StartAsync(IReadOnlyDictionary<string, string?> settings, CancellationToken cancellationToken)
    {
        var directory = new TemporaryDirectory("salsa-bench-gateway-");
        var ports = new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
        var all = new Dictionary<string, string?>(ServiceHostSettings.PortSettings(ports))
        {
            ["Store:SqlitePath"] = directory.Combine("salsa.db"),
            ["Logging:LogLevel:Default"] = "Warning",
        };
        foreach (var (key, value) in settings)
        {
            all[key] = value;
        }

        return StartAsync(directory, ports, all, cancellationToken);
    }

    private static async Task<GatewayHost> StartAsync(TemporaryDirectory directory, ServicePorts ports, Dictionary<string, string?> settings, CancellationToken cancellationToken)
    {
        var app = SalsaServiceHost.Create<GatewayService>(new ServiceHostSettings { Settings = settings, LoadAppSettings = false });
        try
        {
            await app.StartAsync(cancellationToken);
        }
        catch
        {
            await app.DisposeAsync();
            directory.Dispose();
            throw;
        }

        return new GatewayHost(app, directory, ports);
    }

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync(CancellationToken.None);
        await _app.DisposeAsync();
        _directory.Dispose();
    }
}
