using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Grpc.Core;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Gateway;
using Salsa.Hosting.Rpc;
using Salsa.Hosting.Security;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// Streams held open are bounded per key, per tenant and in all, so a flood of them (19,500 event
/// streams from 24 keys took the gateway's descriptors and then the process before) is refused with
/// 429 while <c>/health</c> and another tenant's requests are answered; Kestrel's connections are
/// bounded below the process's open-file limit. A real gateway asking for keys, real streams.
/// </summary>
public sealed class StreamLimitTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task StreamsPastEveryCap_429_HealthAndAnotherTenantServedThroughout_AFreedSlotServesAgain()
    {
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), new Dictionary<string, string?>
        {
            ["Salsa:Auth:Mode"] = "On",
            ["Salsa:Auth:RateLimit:PermitsPerSecond"] = "0",
            ["Salsa:Limits:MaxStreamsPerKey"] = "3",
            ["Salsa:Limits:MaxStreamsPerTenant"] = "5",
            ["Salsa:Limits:MaxStreams"] = "8",
            ["Gateway:WarmStart"] = "false",
            ["Cluster:Enabled"] = "false",
        }, Token);
        // The gateway's salsa.streams.open, followed from before the first stream: once streams were
        // open, its sum back at zero says every one has been given back.
        var meters = gateway.App.Services.GetRequiredService<IMeterFactory>();
        var allClosed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var (open, opened) = (0, false);
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, listening) =>
            {
                if (instrument.Name == "salsa.streams.open" && instrument.Meter.Scope == meters)
                {
                    listening.EnableMeasurementEvents(instrument);
                }
            },
        };
        listener.SetMeasurementEventCallback<int>((_, change, _, _) =>
        {
            var now = Interlocked.Add(ref open, change);
            opened |= change > 0;
            if (now == 0 && opened)
            {
                allClosed.TrySetResult();
            }
        });
        listener.Start();

        var keys = gateway.App.Services.GetRequiredService<ApiKeys>();
        async Task<HttpClient> ClientAsync(string tenant) => gateway.ClientWithKey((await keys.CreateAsync(tenant, tenant, [Scopes.Read], Token)).Key);
        using var alpha1 = await ClientAsync("alpha");
        using var alpha2 = await ClientAsync("alpha");
        using var beta1 = await ClientAsync("beta");
        using var beta2 = await ClientAsync("beta");
        using var gamma = await ClientAsync("gamma");
        var held = new List<HttpResponseMessage>();

        // Per key: the fourth stream of one key.
        for (var i = 0; i < 3; i++)
        {
            held.Add(await OpenAsync(alpha1));
        }

        Assert.Contains("This key holds 3 streams open, the most one key may (Salsa:Limits:MaxStreamsPerKey)", await RefusedAsync(alpha1), StringComparison.Ordinal);

        // Per tenant: another key of the same tenant gets the two left.
        held.Add(await OpenAsync(alpha2));
        held.Add(await OpenAsync(alpha2));
        Assert.Contains("Your tenant holds 5 streams open, the most one tenant may (Salsa:Limits:MaxStreamsPerTenant)", await RefusedAsync(alpha2), StringComparison.Ordinal);

        // In all: another tenant fills the process's eight, then is refused for the process.
        for (var i = 0; i < 3; i++)
        {
            held.Add(await OpenAsync(beta1));
        }

        Assert.Contains("This service holds 8 streams open, the most it holds at once (Salsa:Limits:MaxStreams)", await RefusedAsync(beta2), StringComparison.Ordinal);
        var grpc = await Assert.ThrowsAsync<RpcException>(async () =>
        {
            using var watch = new GatewayClient(gateway.Grpc).WatchRun(new RunRef { RunId = Guid.NewGuid().ToString() }, new CallOptions(new Metadata { { CredentialHeaders.Key, KeyOf(beta2) } }, cancellationToken: Token));
            await watch.ResponseStream.MoveNext(Token);
        });
        Assert.Equal(StatusCode.ResourceExhausted, grpc.StatusCode);

        // A run started with its events in the answer is refused before it starts.
        using (var start = new HttpRequestMessage(HttpMethod.Post, "/api/runs") { Content = JsonContent.Create(new { workflow = "census-indiana" }) })
        {
            start.Headers.Accept.ParseAdd("text/event-stream");
            using var delta = gateway.ClientWithKey((await keys.CreateAsync("delta", "delta", [Scopes.Run], Token)).Key);
            using var refused = await delta.SendAsync(start, Token);
            Assert.Equal(HttpStatusCode.TooManyRequests, refused.StatusCode);
            Assert.Equal("0", (await delta.GetAsync("/api/runs", Token)).Headers.GetValues("X-Total-Count").Single());
        }

        // Throughout: health answers at once, and another tenant's ordinary requests are served.
        for (var i = 0; i < 20; i++)
        {
            var clock = Stopwatch.StartNew();
            Assert.Equal(HttpStatusCode.OK, (await gateway.Http.GetAsync("/health", Token)).StatusCode);
            Assert.True(clock.Elapsed < TimeSpan.FromSeconds(5), $"/health took {clock.Elapsed}");
            Assert.Equal(HttpStatusCode.OK, (await gamma.GetAsync("/api/runs", Token)).StatusCode);
        }

        // Streams that end give their slots back.
        foreach (var response in held)
        {
            response.Dispose();
        }

        await allClosed.Task.WaitAsync(TimeSpan.FromSeconds(30), Token); // the server has seen each go
        Assert.Equal(0, gateway.App.Services.GetRequiredService<StreamSlots>().Open);
        using var again = await OpenAsync(beta2);
    }

    [Fact]
    public void Connections_BoundedBelowTheOpenFileLimit_StreamsBelowTheConnections()
    {
        var limit = StreamSlots.OpenFileLimit;
        Assert.InRange(limit, 64, long.MaxValue); // read from /proc/self/limits on this machine
        var limits = new Salsa.Hosting.ServiceLimits();
        var connections = limits.ConnectionLimit(limit);
        Assert.True(connections <= limit - 256, $"{connections} connections with {limit} descriptors");
        Assert.True(limits.StreamLimit(limit) <= connections / 4);
        Assert.Equal(Math.Min(100, connections), new Salsa.Hosting.ServiceLimits { MaxConnections = 100 }.ConnectionLimit(limit));
        Assert.Equal(connections, new Salsa.Hosting.ServiceLimits { MaxConnections = int.MaxValue }.ConnectionLimit(limit)); // lowered to what the descriptors allow
    }

    [Fact]
    public async Task Kestrel_OfARunningGateway_TakesTheBoundedConnections()
    {
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), new Dictionary<string, string?>
        {
            ["Gateway:WarmStart"] = "false",
            ["Cluster:Enabled"] = "false",
        }, Token);
        var kestrel = gateway.App.Services.GetRequiredService<IOptions<KestrelServerOptions>>().Value;
        var expected = new Salsa.Hosting.ServiceLimits().ConnectionLimit(StreamSlots.OpenFileLimit);
        Assert.Equal(expected, kestrel.Limits.MaxConcurrentConnections);
        Assert.Equal(expected, kestrel.Limits.MaxConcurrentUpgradedConnections);
    }

    private static string KeyOf(HttpClient client) => client.DefaultRequestHeaders.GetValues(CredentialHeaders.Key).Single();

    /// <summary>An event stream of the caller's runs, open once its <c>ready</c> event came: the server holds it.</summary>
    private static async Task<HttpResponseMessage> OpenAsync(HttpClient client)
    {
        var response = await client.SendAsync(new HttpRequestMessage(HttpMethod.Get, "/api/runs/events"), HttpCompletionOption.ResponseHeadersRead, Token);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var reader = new StreamReader(await response.Content.ReadAsStreamAsync(Token));
        Assert.Equal("event: ready", await reader.ReadLineAsync(Token));
        return response;
    }

    /// <summary>The detail of the 429 that refuses one more stream of this caller.</summary>
    private static async Task<string> RefusedAsync(HttpClient client)
    {
        using var response = await client.GetAsync("/api/runs/events", HttpCompletionOption.ResponseHeadersRead, Token);
        var body = await response.Content.ReadAsStringAsync(Token);
        Assert.True(response.StatusCode == HttpStatusCode.TooManyRequests, body);
        Assert.NotNull(response.Headers.RetryAfter);
        return JsonDocument.Parse(body).RootElement.GetProperty("detail").GetString()!;
    }
}
