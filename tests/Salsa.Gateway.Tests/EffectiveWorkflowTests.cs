using System.Net;
using Salsa.Gateway.Runs;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// A run's workflow as it ran (GET /api/runs/{id}/workflow): every step's parameters as the step ran
/// with them, and a workflow file itself — started as it is, it runs the same steps with the same
/// parameters.
/// </summary>
public sealed class EffectiveWorkflowTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task TheWorkflowAsItRan_HasEveryParameter_AndRunsTheSameSteps()
    {
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: Token);
        var first = await gateway.StartRunAsync(new { workflow = "census-indiana", parameters = new Dictionary<string, object> { ["cluster.maxClusters"] = 5, ["map.width"] = 600 } }, Token);
        var ran = await gateway.Runs.WaitAsync(first, Token);
        Assert.True(ran.State == RunState.Succeeded, ran.Error);

        using var response = await gateway.Http.GetAsync($"/api/runs/{first}/workflow", Token);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("application/yaml", response.Content.Headers.ContentType?.MediaType);
        var yaml = await response.Content.ReadAsStringAsync(Token);
        Assert.Contains("\n      maxClusters: 5\n", yaml, StringComparison.Ordinal);
        Assert.Contains("\n      coolingFactor: 0.95\n", yaml, StringComparison.Ordinal); // the operation's default, applied
        Assert.Contains("\n      width: 600\n", yaml, StringComparison.Ordinal);
        Assert.Contains("\n    retry: { attempts: 3, backoff: 1s }\n", yaml, StringComparison.Ordinal);

        // Started as it is, with no overrides: the same steps with the same parameters, the same map.
        var again = await gateway.StartRunAsync(new { yaml }, Token);
        var second = await gateway.Runs.WaitAsync(again, Token);
        Assert.True(second.State == RunState.Succeeded, second.Error);
        Assert.Empty(second.Parameters);
        foreach (var step in ran.Steps)
        {
            var other = second.Steps.Single(s => s.Id == step.Id);
            Assert.Equal((step.Service, step.Operation), (other.Service, other.Operation));
            Assert.Equal(step.Parameters.ToDictionary(p => p.Key, p => p.Value?.ToJsonString()), other.Parameters.ToDictionary(p => p.Key, p => p.Value?.ToJsonString()));
        }

        Assert.Equal(ran.Steps.Single(s => s.Id == "map").Digests, second.Steps.Single(s => s.Id == "map").Digests);
        using var unknown = await gateway.Http.GetAsync($"/api/runs/{Guid.NewGuid()}/workflow", Token);
        Assert.Equal(HttpStatusCode.NotFound, unknown.StatusCode);
    }
}
