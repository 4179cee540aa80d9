using System.Globalization;
using System.Net;
using System.Net.Http.Json;
using System.Text;
using System.Text.Json;
using Grpc.Core;
using Salsa.Contracts.Gateway;
using Salsa.Gateway.Runs;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// Retry from a step (Airflow's clear) on the embedded default, over REST and gRPC: the step and
/// everything downstream run again — with changes for those steps — and the steps before it are
/// reused, the same dataset ids and digests, with no call made for them; the new run links the old.
/// A failed step is retried with a mended parameter; what cannot be retried is refused and starts
/// nothing.
/// </summary>
public sealed class RetryTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task RetryFromAStep_RunsItAndDownstreamAgain_ReusesTheRest_OverRestAndGrpc()
    {
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: Token);
        var first = await gateway.StartRunAsync(new { workflow = "census-indiana", parameters = new Dictionary<string, object> { ["cluster.maxClusters"] = 4 } }, Token);
        var old = await gateway.Runs.WaitAsync(first, Token);
        Assert.True(old.State == RunState.Succeeded, old.Error);

        // From the clustering, with a larger Kmax: import and query reused, cluster and map run again.
        using var response = await gateway.Http.PostAsJsonAsync($"/api/runs/{first}/steps/cluster/retry", new { parameters = new Dictionary<string, object> { ["cluster.maxClusters"] = 7 } }, Token);
        Assert.Equal(HttpStatusCode.Accepted, response.StatusCode);
        var accepted = await response.Content.ReadFromJsonAsync<JsonElement>(Token);
        Assert.Equal(first.ToString(), accepted.GetProperty("rerunOf").GetString());
        Assert.Equal("cluster", accepted.GetProperty("retriedFrom").GetString());
        var retried = await gateway.Runs.WaitAsync(Guid.Parse(accepted.GetProperty("id").GetString()!), Token);

        Assert.True(retried.State == RunState.Succeeded, retried.Error);
        Assert.Equal(7, retried.Parameters["cluster.maxClusters"]!.GetValue<int>());
        foreach (var reused in new[] { "import", "query" })
        {
            var before = old.Steps.Single(s => s.Id == reused);
            var now = retried.Steps.Single(s => s.Id == reused);
            Assert.True(now.Reused, reused);
            Assert.Equal(before.Outputs!["dataset"]!.GetValue<string>(), now.Outputs!["dataset"]!.GetValue<string>());
            Assert.Equal(before.Digests, now.Digests);
            Assert.DoesNotContain(retried.Hops, h => h.Step == reused); // no call made for it
        }

        foreach (var again in new[] { "cluster", "map" })
        {
            var now = retried.Steps.Single(s => s.Id == again);
            Assert.False(now.Reused, again);
            Assert.Contains(retried.Hops, h => h.Step == again);
            Assert.NotEqual(old.Steps.Single(s => s.Id == again).Jobs.Single().JobId, now.Jobs.Single().JobId);
        }

        Assert.Equal(7, retried.Steps.Single(s => s.Id == "cluster").Parameters["maxClusters"]!.GetValue<int>());
        Assert.Equal(4, old.Steps.Single(s => s.Id == "cluster").Parameters["maxClusters"]!.GetValue<int>());

        // Over gRPC, from the map alone: the clustering reused too, and the map drawn again the same.
        var client = new Contracts.Gateway.Gateway.GatewayClient(gateway.Grpc);
        var fromMap = await client.RetryRunAsync(new RetryRunRequest { RunId = first.ToString(), Step = "map" }, cancellationToken: Token);
        Assert.Equal(("map", first.ToString()), (fromMap.RetriedFrom, fromMap.RerunOf));
        var redrawn = await gateway.Runs.WaitAsync(Guid.Parse(fromMap.RunId), Token);
        Assert.True(redrawn.State == RunState.Succeeded, redrawn.Error);
        Assert.Equal(["import", "query", "cluster"], redrawn.Steps.Where(s => s.Reused).Select(s => s.Id));
        Assert.Equal(old.Steps.Single(s => s.Id == "map").Digests, redrawn.Steps.Single(s => s.Id == "map").Digests);
        Assert.Equal(old.Artifacts.Select(a => (a.Name, a.Sha256)), redrawn.Artifacts.Select(a => (a.Name, a.Sha256)));
    }

    [Fact]
    public async Task AFailedStep_RetriedWithAMendedParameter_Succeeds_AndWhatCannotBeRetriedIsRefused()
    {
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: Token);
        var good = directory.Combine("places.csv");
        var csv = new StringBuilder("id,latitude,longitude,weight\n");
        for (var i = 0; i < 60; i++)
        {
            csv.Append(CultureInfo.InvariantCulture, $"p{i},{39 + (i % 11 * 0.1):0.000},{-86.9 + (i % 13 * 0.08):0.000},{1 + (i % 5)}\n");
        }

        await File.WriteAllTextAsync(good, csv.ToString(), Token);
        var failed = await gateway.StartRunAsync(new { workflow = "census-places", parameters = new Dictionary<string, object> { ["import.file"] = directory.Combine("missing.csv"), ["cluster.maxClusters"] = 3 } }, Token);
        var failure = await gateway.Runs.WaitAsync(failed, Token);
        Assert.Equal(RunState.Failed, failure.State);
        Assert.Equal(StepState.Failed, failure.Steps.Single(s => s.Id == "import").State);
        var before = (await gateway.Runs.ListAsync(100, Token)).Count;

        // Refused, and nothing starts: a step after the failed one, a change to a reused step, an unknown step.
        await RefusedAsync(gateway, $"/api/runs/{failed}/steps/cluster/retry", null, HttpStatusCode.Conflict, "Step 'import', which 'cluster' reads, failed");
        await RefusedAsync(gateway, $"/api/runs/{failed}/steps/cluster/retry", new Dictionary<string, object> { ["import.file"] = good }, HttpStatusCode.BadRequest, "retry from 'import' to change it");
        await RefusedAsync(gateway, $"/api/runs/{failed}/steps/nope/retry", null, HttpStatusCode.NotFound, "'import'");
        await RefusedAsync(gateway, $"/api/runs/{Guid.NewGuid()}/steps/import/retry", null, HttpStatusCode.NotFound, "No run");
        var client = new Contracts.Gateway.Gateway.GatewayClient(gateway.Grpc);
        var grpc = await Assert.ThrowsAsync<RpcException>(async () => await client.RetryRunAsync(new RetryRunRequest { RunId = failed.ToString(), Step = "map" }, cancellationToken: Token));
        Assert.Equal(StatusCode.FailedPrecondition, grpc.StatusCode);
        Assert.Equal(before, (await gateway.Runs.ListAsync(100, Token)).Count);

        // The failed step itself, with the file mended: everything runs, nothing is reused.
        using var response = await gateway.Http.PostAsJsonAsync($"/api/runs/{failed}/steps/import/retry", new { parameters = new Dictionary<string, object> { ["import.file"] = good } }, Token);
        Assert.Equal(HttpStatusCode.Accepted, response.StatusCode);
        var mended = await gateway.Runs.WaitAsync(Guid.Parse((await response.Content.ReadFromJsonAsync<JsonElement>(Token)).GetProperty("id").GetString()!), Token);
        Assert.True(mended.State == RunState.Succeeded, mended.Error);
        Assert.Equal((failed, "import"), (mended.RerunOf!.Value, mended.RetriedFrom));
        Assert.DoesNotContain(mended.Steps, s => s.Reused);

        // A run still going cannot be retried.
        var going = await gateway.StartRunAsync(new { workflow = "census-us" }, Token);
        await RefusedAsync(gateway, $"/api/runs/{going}/steps/map/retry", null, HttpStatusCode.Conflict, "once it has ended");
        await gateway.Http.PostAsync($"/api/runs/{going}/cancel", content: null, Token);
    }

    private static async Task RefusedAsync(GatewayServer gateway, string path, Dictionary<string, object>? changes, HttpStatusCode status, string says)
    {
        using var response = await gateway.Http.PostAsJsonAsync(path, new { parameters = changes }, Token);
        var text = await response.Content.ReadAsStringAsync(Token);
        Assert.True(response.StatusCode == status, $"{path}: {(int)response.StatusCode} {text}");
        Assert.Contains(says, text, StringComparison.Ordinal);
        Assert.Contains("application/problem+json", response.Content.Headers.ContentType?.ToString() ?? "", StringComparison.Ordinal);
    }
}
