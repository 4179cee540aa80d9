using System.Collections.Concurrent;
using System.Diagnostics;
using System.Security.Cryptography;
using Grpc.Core;
using Grpc.Health.V1;
using Grpc.Net.Client;
using Microsoft.Extensions.Options;
using Salsa.Contracts.Clients;
using Salsa.Grid;
using Salsa.Hosting.Host;
using Salsa.Hosting.Security;
using Salsa.Store;

namespace Salsa.Gateway.Services;

/// <summary>Where a service is reached, and whether this process hosts it.</summary>
public sealed record ServiceEndpoint(string Name, Uri GrpcAddress, Uri? RestAddress, bool Embedded);

/// <summary>
/// The services the gateway calls. A service whose gRPC address is configured
/// (<c>Gateway:Services:&lt;name&gt;</c>, e.g. <c>http://annealing:5102</c> in compose) is called there;
/// any other is the embedded default: hosted in this process on free loopback ports, on the same
/// host code as when it runs alone and over the gateway's store, started when first needed. Either
/// way every hop is a real gRPC call.
/// </summary>
public sealed class ServiceDirectory(
    IOptions<GatewayOptions> gatewayOptions, IConfiguration configuration, StoreOptions store, ServiceSecurity security, IOptions<AuthSettings> authOptions,
    IOptions<ExposureOptions> exposure, IOptions<LoggerFilterOptions> logFilters, GridOptions grid, ILogger<ServiceDirectory> logger,
    SiloSettings? silo = null, EmbeddedServices? embedded = null) : IAsyncDisposable
{
    private readonly AuthSettings auth = authOptions.Value;
    private readonly GatewayOptions _options = gatewayOptions.Value;

    public const string Section = $"{GatewayOptions.Section}:{nameof(GatewayOptions.Services)}";

    private readonly EmbeddedServices _embedded = embedded ?? EmbeddedServices.None;

    private readonly ConcurrentDictionary<string, Lazy<Task<(ServiceEndpoint Endpoint, GrpcChannel Channel)>>> _services = new(StringComparer.Ordinal);
    private readonly ConcurrentBag<WebApplication> _hosted = [];
    private bool _disposed;

    // The service key the gateway presents: the configured one, or — for the services it hosts
    // itself while it asks its own callers for credentials — one made for this process.
    private readonly string? _serviceKey = authOptions.Value.ServiceKey is { Length: > 0 } configured ? configured
        : security.Enabled ? Convert.ToBase64String(RandomNumberGenerator.GetBytes(32)) : null;

    /// <summary>The services the gateway knows.</summary>
    public static IReadOnlyCollection<string> Known => [.. ServiceNames.All];

    /// <summary>The services reached so far (embedded ones appear once started).</summary>
    public IReadOnlyList<ServiceEndpoint> Endpoints =>
        [.. _services.Values.Where(l => l.IsValueCreated && l.Value.IsCompletedSuccessfully).Select(l => l.Value.Result.Endpoint).OrderBy(e => e.Name, StringComparer.Ordinal)];

    /// <summary>The configured remote address of a service, or null for the embedded default.</summary>
    public Uri? RemoteAddress(string service) => _options.RemoteAddress(service);

    /// <summary>The channel to a service, starting it in this process first when it is embedded.</summary>
    public async Task<GrpcChannel> ChannelAsync(string service, CancellationToken cancellationToken)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (!ServiceNames.All.Contains(service))
        {
            throw new ArgumentException($"Unknown service '{service}' (known: {string.Join(", ", Known)}).", nameof(service));
        }

        var lazy = _services.GetOrAdd(service, name => new Lazy<Task<(ServiceEndpoint, GrpcChannel)>>(() => ConnectAsync(name)));
        try
        {
            var connected = await lazy.Value.WaitAsync(cancellationToken).ConfigureAwait(false);
            return connected.Channel;
        }
        catch (Exception) when (lazy.Value.IsFaulted)
        {
            // A start that failed (e.g. a port taken between choosing and binding it) is tried afresh by the next call.
            _services.TryRemove(KeyValuePair.Create(service, lazy));
            throw;
        }
    }

    /// <summary>How long a service's health, once asked, is answered from memory.</summary>
    private static readonly TimeSpan HealthMemory = TimeSpan.FromSeconds(5);

    private readonly Lock _healthGate = new();
    private readonly Dictionary<string, (long Asked, Task<string> Probe)> _health = new(StringComparer.Ordinal);

    /// <summary>
    /// A service's health as grpc.health.v1 reports it (<c>serving</c>, <c>not-serving</c>), <c>unreachable</c>
    /// when it does not answer within <paramref name="timeout"/>, or <c>idle</c> for an embedded service
    /// not started yet (it starts on first use; asking does not start it). The probe goes over a channel
    /// of its own, so a failed probe never leaves the channel the runs use backing off; an answer is
    /// kept <see cref="HealthMemory"/>, so callers asking often cost one probe per service.
    /// </summary>
    public Task<string> HealthAsync(string service, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var address = Endpoints.FirstOrDefault(e => e.Name == service)?.GrpcAddress ?? RemoteAddress(service);
        if (address is null)
        {
            return Task.FromResult("idle");
        }

        Task<string> probe;
        lock (_healthGate)
        {
            var now = Environment.TickCount64;
            if (!_health.TryGetValue(service, out var known) || (known.Probe.IsCompleted && now - known.Asked > HealthMemory.TotalMilliseconds))
            {
                known = (now, ProbeAsync(address, timeout));
                _health[service] = known;
            }

            probe = known.Probe;
        }

        return probe.WaitAsync(cancellationToken);
    }

    private async Task<string> ProbeAsync(Uri address, TimeSpan timeout)
    {
        try
        {
            using var channel = GrpcChannel.ForAddress(address, new GrpcChannelOptions
            {
                HttpHandler = new ServiceCredentials(_serviceKey) { InnerHandler = new SocketsHttpHandler { ConnectTimeout = timeout } },
            });
            var reply = await new Health.HealthClient(channel)
                .CheckAsync(new HealthCheckRequest(), deadline: DateTime.UtcNow + timeout).ConfigureAwait(false);
            return reply.Status == HealthCheckResponse.Types.ServingStatus.Serving ? "serving" : "not-serving";
        }
        catch (Exception exception) when (exception is RpcException or HttpRequestException or InvalidOperationException)
        {
            return "unreachable";
        }
    }

    /// <summary>Starts (or connects to) every known service now — the server mode's warm start.</summary>
    public Task StartAllAsync(CancellationToken cancellationToken) =>
        Task.WhenAll(Known.Select(s => ChannelAsync(s, cancellationToken)));

    private async Task<(ServiceEndpoint, GrpcChannel)> ConnectAsync(string service)
    {
        if (RemoteAddress(service) is { } remote)
        {
            if (security.Enabled && string.IsNullOrEmpty(auth.ServiceKey))
            {
                throw new InvalidOperationException(
                    $"The gateway asks its callers for credentials, so the {service} service at {remote} does too: set {AuthSettings.Section}:ServiceKey, the same secret on the gateway and every service.");
            }

            GatewayLog.RemoteService(logger, service, remote);
            return (new ServiceEndpoint(service, remote, null, Embedded: false), Channel(remote));
        }

        // The host outlives the call that starts it: its background work is not part of the caller's
        // trace (nor attributed to the gateway's telemetry by being that trace's child).
        Activity.Current = null;
        var pinned = PinnedPorts.From(_options);
        for (var attempt = 1; ; attempt++)
        {
            var ports = pinned?.Service(service) ?? new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
            var module = _embedded.Find(service)
                ?? throw new InvalidOperationException($"This process hosts no {service} service: give its address as {Section}:{service}.");
            var app = module.Create(EmbeddedSettings(ports));
            try
            {
                await app.StartAsync(CancellationToken.None).ConfigureAwait(false);
            }
            catch (IOException) when (attempt < 3 && pinned is null)
            {
                // The free port was taken before Kestrel bound it: choose again.
                await app.DisposeAsync().ConfigureAwait(false);
                continue;
            }
            catch (IOException exception) when (pinned is not null)
            {
                await app.DisposeAsync().ConfigureAwait(false);
                throw new InvalidOperationException($"The {service} service cannot listen on its pinned ports, {pinned.Describe(ports.Rest)} and {ports.Grpc}: {exception.Message}", exception);
            }

            _hosted.Add(app);
            GatewayLog.EmbeddedService(logger, service, ports.GrpcAddress);
            return (new ServiceEndpoint(service, ports.GrpcAddress, ports.RestAddress, Embedded: true), Channel(ports.GrpcAddress));
        }
    }

    /// <summary>
    /// A channel whose every call carries the service key and the tenant the call acts for (the
    /// run's, or the request's): the service then keeps what it makes as that tenant's.
    /// </summary>
    private GrpcChannel Channel(Uri address) => GrpcChannel.ForAddress(address, new GrpcChannelOptions
    {
        HttpHandler = new ServiceCredentials(_serviceKey) { InnerHandler = new SocketsHttpHandler { EnableMultipleHttp2Connections = true } },
    });

    private sealed class ServiceCredentials(string? serviceKey) : DelegatingHandler
    {
        protected override Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            if (serviceKey is not null)
            {
                request.Headers.TryAddWithoutValidation(CredentialHeaders.Key, serviceKey);
            }

            if (CallerTenant.CurrentOrNull is { } tenant)
            {
                request.Headers.TryAddWithoutValidation(CredentialHeaders.Tenant, tenant);
            }

            return base.SendAsync(request, cancellationToken);
        }
    }

    /// <summary>
    /// How the gateway hosts a service: on its ports, over the gateway's store, its log at
    /// <see cref="GatewayOptions.EmbeddedLogLevel"/> (Orleans' at the gateway's level for Orleans),
    /// and under the gateway's <c>Salsa</c> and <c>Cluster</c> sections (its limits are theirs) — with
    /// what the gateway decides for them given as typed options.
    /// </summary>
    private ServiceHostSettings EmbeddedSettings(ServicePorts ports)
    {
        List<object> options = [store];
        if (Exposure.IsExposed(exposure.Value))
        {
            // Every caller of an exposed gateway reaches the services it hosts through it, although
            // their own ports are on loopback: they are exposed too (credentials, files).
            options.Add(new ExposureOptions { Exposed = true });
        }

        if (security.Enabled)
        {
            // A gateway that asks for credentials hosts services that do too, on the key it presents.
            var credentials = auth.Copy();
            (credentials.Mode, credentials.ServiceKey) = (AuthMode.On, _serviceKey);
            options.Add(credentials);
        }

        if (silo is not null && grid.Role != GridRole.Client)
        {
            // This process is the silo: the services it hosts compute through it as its clients.
            var client = grid.Copy();
            (client.Role, client.GatewayPort) = (GridRole.Client, silo.GatewayPort);
            options.Add(client);
        }
        else if (grid.Enabled && grid.Role == GridRole.Client)
        {
            // The gateway is a client of silos elsewhere: the services it hosts find them as it does
            // (its membership table: Cluster:ConnectionString or the store's PostgreSQL, a key
            // outside the Cluster section they bind).
            options.Add(grid.Copy());
        }

        return new ServiceHostSettings
        {
            Ports = ports,
            LoadAppSettings = false,
            Parent = configuration,
            Options = options,
            LogLevel = _options.EmbeddedLogLevel,
            // The services compute on the cluster as Orleans clients: the gateway's say on Orleans' log is theirs.
            CategoryLogLevels = OrleansLogLevel() is { } orleans ? new Dictionary<string, LogLevel> { ["Orleans"] = orleans } : new Dictionary<string, LogLevel>(),
        };
    }

    // The gateway's rule for Orleans' log: its console's, else any provider's.
    private LogLevel? OrleansLogLevel() =>
        logFilters.Value.Rules.Where(r => r.CategoryName == "Orleans" && r.LogLevel is not null)
            .OrderBy(r => r.ProviderName is "Console" or "Microsoft.Extensions.Logging.Console.ConsoleLoggerProvider" ? 0 : r.ProviderName is null ? 1 : 2)
            .FirstOrDefault()?.LogLevel;

    public async ValueTask DisposeAsync()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        foreach (var lazy in _services.Values.Where(l => l.IsValueCreated))
        {
            await ((Task)lazy.Value).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
            if (lazy.Value.IsCompletedSuccessfully)
            {
                lazy.Value.Result.Channel.Dispose();
            }
        }

        foreach (var app in _hosted)
        {
            await app.StopAsync().ConfigureAwait(false);
            await app.DisposeAsync().ConfigureAwait(false);
        }
    }
}

internal static partial class GatewayLog
{
    [LoggerMessage(Level = LogLevel.Information, Message = "The {Service} service is embedded, gRPC on {Address}")]
    public static partial void EmbeddedService(ILogger logger, string service, Uri address);

    [LoggerMessage(Level = LogLevel.Information, Message = "The {Service} service is remote, at {Address}")]
    public static partial void RemoteService(ILogger logger, string service, Uri address);
}
