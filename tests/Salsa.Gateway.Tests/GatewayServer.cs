using System.Net.Http.Json;
using System.Text.Json;
using Grpc.Net.Client;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Salsa.Gateway.Runs;
using Salsa.Hosting.Host;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The gateway as it runs in server mode: a real Kestrel host on free loopback ports over a real
/// SQLite store, its services embedded (or remote when addressed), reached over REST, SSE and gRPC.
/// </summary>
public sealed class GatewayServer : IAsyncDisposable
{
    private GatewayServer(WebApplication app, ServicePorts ports)
    {
        App = app;
        Ports = ports;
        Http = new HttpClient { BaseAddress = ports.RestAddress, Timeout = TimeSpan.FromMinutes(10) };
        Grpc = GrpcChannel.ForAddress(ports.GrpcAddress);
    }

    public WebApplication App { get; }

    public ServicePorts Ports { get; }

    public HttpClient Http { get; }

    public GrpcChannel Grpc { get; }

    /// <summary>A REST client of this gateway calling with the API key <paramref name="key"/>.</summary>
    public HttpClient ClientWithKey(string key)
    {
        var client = new HttpClient { BaseAddress = Ports.RestAddress, Timeout = TimeSpan.FromMinutes(2) };
        client.DefaultRequestHeaders.Add(Salsa.Hosting.Security.CredentialHeaders.Key, key);
        return client;
    }

    /// <summary>
    /// The gateway's runs, called in this process as the one user of a gateway without
    /// authentication (the tenant <c>local</c>): asking for them makes the calling flow act for that
    /// tenant (a synchronous getter, so the tenant stays set in the test that asks).
    /// </summary>
    public RunManager Runs
    {
        get
        {
            Salsa.Hosting.Security.CallerTenant.Enter(Salsa.Store.Tenants.Local);
            return App.Services.GetRequiredService<RunManager>();
        }
    }

    public static async Task<GatewayServer> StartAsync(string storePath, IReadOnlyDictionary<string, string?>? settings = null, CancellationToken cancellationToken = default)
    {
        var ports = new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
        var all = new Dictionary<string, string?>(ServiceHostSettings.PortSettings(ports))
        {
            ["Store:SqlitePath"] = storePath,
            ["Logging:LogLevel:Default"] = "Warning",
        };
        foreach (var (key, value) in settings ?? new Dictionary<string, string?>())
        {
            all[key] = value;
        }

        var app = SalsaServiceHost.Create<GatewayService>(new ServiceHostSettings { Settings = all, LoadAppSettings = false });
        await app.StartAsync(cancellationToken);
        return new GatewayServer(app, ports);
    }

    /// <summary>POST /api/runs; returns the run's id (asserting the 202 and its Location).</summary>
    public async Task<Guid> StartRunAsync(object request, CancellationToken cancellationToken)
    {
        using var response = await Http.PostAsJsonAsync("/api/runs", request, cancellationToken);
        var body = await response.Content.ReadAsStringAsync(cancellationToken);
        Assert.True(response.StatusCode == System.Net.HttpStatusCode.Accepted, $"{response.StatusCode}: {body}");
        var id = JsonDocument.Parse(body).RootElement.GetProperty("id").GetGuid();
        Assert.Equal($"/api/runs/{id}", response.Headers.Location?.ToString());
        return id;
    }

    /// <summary>Reads GET /api/runs/{id}/events to its end: (event, data) in order.</summary>
    public async Task<List<(string Event, JsonElement Data)>> EventsAsync(Guid id, Func<string, JsonElement, bool>? stopWhen = null, CancellationToken cancellationToken = default)
    {
        var events = new List<(string, JsonElement)>();
        await foreach (var (name, data) in ServerSentEventsReader.ReadAsync(Http, $"/api/runs/{id}/events", cancellationToken))
        {
            events.Add((name, data));
            if (stopWhen?.Invoke(name, data) == true)
            {
                break;
            }
        }

        return events;
    }

    public async Task<JsonElement> GetRunAsync(Guid id, CancellationToken cancellationToken) =>
        JsonDocument.Parse(await Http.GetStringAsync($"/api/runs/{id}", cancellationToken)).RootElement.Clone();

    public async Task StopAsync()
    {
        await App.StopAsync(CancellationToken.None);
    }

    public async ValueTask DisposeAsync()
    {
        Http.Dispose();
        Grpc.Dispose();
        await App.StopAsync(CancellationToken.None);
        await App.DisposeAsync();
    }
}
