using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Microsoft.Extensions.DependencyInjection;
using Salsa.Gateway.Runs;
using Salsa.Hosting.Security;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// One tenant flooding the gateway with runs fills its own share of the run queue, not everyone's:
/// its next start is refused, another tenant's is accepted, and when the slot frees the other
/// tenant's run starts before the flooder's backlog. A real gateway asking for keys, real runs.
/// </summary>
public sealed class TenantFairnessTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task FloodingTenant_FillsOnlyItsShare_AnotherTenantsRunAcceptedAndStartedNext()
    {
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), new Dictionary<string, string?>
        {
            ["Salsa:Auth:Mode"] = "On",
            ["Salsa:Auth:RateLimit:PermitsPerSecond"] = "0",
            ["Gateway:Runs:Concurrent"] = "1",
            ["Gateway:Runs:QueueDepth"] = "8",
            ["Gateway:Runs:MaxQueuedPerTenant"] = "3",
            ["Gateway:WarmStart"] = "false",
            ["Cluster:Enabled"] = "false",
        }, Token);
        var keys = gateway.App.Services.GetRequiredService<ApiKeys>();
        using var flood = gateway.ClientWithKey((await keys.CreateAsync("flood", "flood", [Scopes.Run], Token)).Key);
        using var other = gateway.ClientWithKey((await keys.CreateAsync("other", "other", [Scopes.Run], Token)).Key);
        var runs = gateway.App.Services.GetRequiredService<RunManager>();

        var first = await StartAsync(flood);
        await UntilAsync(runs, "flood", first, RunState.Running);
        var backlog = new List<Guid> { await StartAsync(flood), await StartAsync(flood), await StartAsync(flood) };

        using var refused = await flood.PostAsJsonAsync("/api/runs", SlowRun, Token);
        var problem = await refused.Content.ReadAsStringAsync(Token);
        Assert.True(refused.StatusCode == HttpStatusCode.TooManyRequests, problem);
        Assert.Contains("You have as many runs waiting as one tenant may queue here: 3 (Gateway:Runs:MaxQueuedPerTenant)", problem, StringComparison.Ordinal);
        Assert.NotNull(refused.Headers.RetryAfter);

        var theirs = await StartAsync(other); // accepted: the queue as a whole has room
        using (CallerTenant.Enter("flood"))
        {
            await runs.CancelAsync(first, Token);
        }

        // The freed slot is the other tenant's, although three of the flooder's runs waited longer.
        await UntilAsync(runs, "other", theirs, RunState.Running);
        using (CallerTenant.Enter("flood"))
        {
            foreach (var id in backlog)
            {
                Assert.Equal(RunState.Queued, (await runs.GetRequiredAsync(id, Token)).State);
            }

            foreach (var id in backlog)
            {
                await runs.CancelAsync(id, Token);
            }
        }

        using (CallerTenant.Enter("other"))
        {
            await runs.CancelAsync(theirs, Token);
            Assert.Equal(RunState.Cancelled, (await runs.WaitAsync(theirs, Token)).State);
        }
    }

    /// <summary>
    /// A run that computes far longer than the test (the geometric schedule at 0.9998, and more clusters
    /// than it reaches before the end of it): it holds its slot until cancelled.
    /// </summary>
    private static object SlowRun => new
    {
        workflow = "census-indiana",
        parameters = new Dictionary<string, object> { ["import.source"] = "indiana-1000", ["cluster.fixedCooling"] = true, ["cluster.coolingFactor"] = 0.9998, ["cluster.maxClusters"] = 200 },
    };

    private static async Task<Guid> StartAsync(HttpClient client)
    {
        using var response = await client.PostAsJsonAsync("/api/runs", SlowRun, Token);
        var body = await response.Content.ReadAsStringAsync(Token);
        Assert.True(response.StatusCode == HttpStatusCode.Accepted, body);
        return JsonDocument.Parse(body).RootElement.GetProperty("id").GetGuid();
    }

    /// <summary>Waits on the run's own events until it reaches <paramref name="state"/>.</summary>
    private static async Task UntilAsync(RunManager runs, string tenant, Guid id, RunState state)
    {
        using var scope = CallerTenant.Enter(tenant);
        await foreach (var change in runs.WatchAsync(id, Token))
        {
            if (change is RunEvent.RunChanged { View.State: var now } && now == state)
            {
                return;
            }
        }

        Assert.Equal(state, (await runs.GetRequiredAsync(id, Token)).State);
    }
}
