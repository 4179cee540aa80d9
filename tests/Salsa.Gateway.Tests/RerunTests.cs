using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Salsa.Contracts.Gateway;
using Salsa.Gateway.Runs;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// A run records what it ran with (its parameter overrides and its workflow text's version), and a
/// re-run repeats it with changes: over REST and gRPC, against a real gateway and its store.
/// </summary>
public sealed class RerunTests
{
    [Fact]
    public async Task Rerun_WithChanges_RunsTheSameTextWithTheChangedParameters()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var first = await gateway.StartRunAsync(new { workflow = "census-indiana", parameters = new Dictionary<string, object> { ["cluster.maxClusters"] = 6 } }, token);
        Assert.Equal(RunState.Succeeded, (await gateway.Runs.WaitAsync(first, token)).State);

        var recorded = await gateway.GetRunAsync(first, token);
        Assert.Equal(6, recorded.GetProperty("parameters").GetProperty("cluster.maxClusters").GetInt32());
        var version = recorded.GetProperty("workflowVersion").GetString()!;
        Assert.Matches("^[0-9a-f]{12}$", version);

        using var response = await gateway.Http.PostAsJsonAsync($"/api/runs/{first}/rerun",
            new { parameters = new Dictionary<string, object> { ["cluster.maxClusters"] = 8, ["map.width"] = 640 } }, token);
        var body = await response.Content.ReadAsStringAsync(token);
        Assert.True(response.StatusCode == HttpStatusCode.Accepted, $"{response.StatusCode}: {body}");
        var second = JsonDocument.Parse(body).RootElement.GetProperty("id").GetGuid();
        Assert.Equal($"/api/runs/{second}", response.Headers.Location?.ToString());
        var rerun = await gateway.Runs.WaitAsync(second, token);

        Assert.True(rerun.State == RunState.Succeeded, rerun.Error);
        Assert.NotEqual(first, second);
        Assert.Equal(first, rerun.RerunOf);
        Assert.Equal(version, rerun.WorkflowVersion);
        Assert.Equal(["cluster.maxClusters", "map.width"], rerun.Parameters.Keys.Order(StringComparer.Ordinal));
        Assert.Equal(8, rerun.Parameters["cluster.maxClusters"]!.GetValue<int>());
        Assert.Equal(8, rerun.Steps.Single(s => s.Id == "cluster").Outputs!["clusters"]!.GetValue<int>());

        // The list tells the runs apart, and gRPC reads the same record.
        var listed = JsonDocument.Parse(await gateway.Http.GetStringAsync("/api/runs", token)).RootElement.EnumerateArray()
            .ToDictionary(r => r.GetProperty("id").GetGuid(), r => r.GetProperty("parameters").GetProperty("cluster.maxClusters").GetInt32());
        Assert.Equal(6, listed[first]);
        Assert.Equal(8, listed[second]);
        var client = new Contracts.Gateway.Gateway.GatewayClient(gateway.Grpc);
        var proto = await client.GetRunAsync(new RunRef { RunId = second.ToString() }, cancellationToken: token);
        Assert.Equal("8", proto.Parameters["cluster.maxClusters"]);
        Assert.Equal(first.ToString(), proto.RerunOf);
        Assert.Equal(version, proto.WorkflowVersion);

        // Over gRPC, "null" drops an override: the workflow's default applies again.
        var third = await client.RerunRunAsync(new Contracts.Gateway.RerunRequest { RunId = second.ToString(), Parameters = { ["cluster.maxClusters"] = "null" } }, cancellationToken: token);
        Assert.Equal(["map.width"], third.Parameters.Keys);
        Assert.Equal(second.ToString(), third.RerunOf);
        Assert.Equal(RunState.Succeeded, (await gateway.Runs.WaitAsync(Guid.Parse(third.RunId), token)).State);
    }

    [Fact]
    public async Task Rerun_ChangeOutOfBounds_Is400AndStartsNothing()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var first = await gateway.StartRunAsync(new { workflow = "census-indiana" }, token);
        await gateway.Runs.WaitAsync(first, token);

        using var response = await gateway.Http.PostAsJsonAsync($"/api/runs/{first}/rerun",
            new { parameters = new Dictionary<string, object> { ["cluster.maxClusters"] = -3 } }, token);
        var problem = await response.Content.ReadAsStringAsync(token);
        using var unknown = await gateway.Http.PostAsJsonAsync($"/api/runs/{Guid.NewGuid()}/rerun", new { }, token);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        Assert.Contains("maxClusters", problem, StringComparison.Ordinal);
        Assert.Equal(HttpStatusCode.NotFound, unknown.StatusCode);
        Assert.Single(await gateway.Runs.ListAsync(10, token));
    }
}
