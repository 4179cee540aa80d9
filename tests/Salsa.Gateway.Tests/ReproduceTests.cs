using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using System.Text.Json.Nodes;
using Grpc.Core;
using Salsa.Contracts.Gateway;
using Salsa.Gateway.Runs;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// A run records how it was made (the release, its workflow text, every step's effective
/// parameters, the SHA-256 of every output and kept file) and is reproduced from that record — by
/// its id or from its <c>result.json</c>, over REST and gRPC — output by output, against a real
/// gateway and its store.
/// </summary>
public sealed class ReproduceTests(PostgresFixture postgres)
{
    [Fact]
    public async Task Reproduce_ById_AndFromItsResultJson_IsIdenticalOutputByOutput()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var first = await gateway.StartRunAsync(new { yaml = TestWorkflows.Small }, token);
        Assert.Equal(RunState.Succeeded, (await gateway.Runs.WaitAsync(first, token)).State);

        // What the run records: the release, the text, each step's parameters (defaults included),
        // each output's digest, each kept file's.
        var recorded = await gateway.GetRunAsync(first, token);
        var provenance = recorded.GetProperty("provenance");
        Assert.StartsWith(typeof(RunManager).Assembly.GetName().Version!.ToString(3), provenance.GetProperty("platform").GetString(), StringComparison.Ordinal);
        Assert.Equal(TestWorkflows.Small, provenance.GetProperty("workflow").GetString());
        var steps = recorded.GetProperty("steps").EnumerateArray().ToDictionary(s => s.GetProperty("id").GetString()!);
        Assert.True(steps["cluster"].GetProperty("parameters").TryGetProperty("maxIterations", out _), "a default parameter is recorded");
        Assert.Matches("^[0-9a-f]{64}$", steps["import"].GetProperty("digests").GetProperty("dataset").GetString());
        Assert.Matches("^[0-9a-f]{64}$", steps["query"].GetProperty("digests").GetProperty("dataset").GetString());
        Assert.NotEqual(steps["import"].GetProperty("digests").GetProperty("dataset").GetString(), steps["query"].GetProperty("digests").GetProperty("dataset").GetString());
        Assert.Matches("^[0-9a-f]{64}$", steps["cluster"].GetProperty("digests").GetProperty("job").GetString());
        var artifact = Assert.Single(recorded.GetProperty("artifacts").EnumerateArray());
        Assert.Matches("^[0-9a-f]{64}$", artifact.GetProperty("sha256").GetString());
        var expected = steps.Values.Sum(s => s.GetProperty("digests").EnumerateObject().Count()) + 1;

        // By its id, over REST.
        using var response = await gateway.Http.PostAsync($"/api/runs/{first}/reproduce", content: null, token);
        var body = await response.Content.ReadAsStringAsync(token);
        Assert.True(response.StatusCode == HttpStatusCode.Accepted, $"{response.StatusCode}: {body}");
        var again = await gateway.Runs.WaitAsync(JsonDocument.Parse(body).RootElement.GetProperty("id").GetGuid(), token);
        AssertIdentical(again, first, expected);
        Assert.Empty(again.Reproduction!.Pinned);

        // From the recorded result.json, over REST and gRPC, and by its id over gRPC.
        var resultJson = recorded.GetRawText();
        using var fromFile = await gateway.Http.PostAsync("/api/runs/reproduce", new StringContent(resultJson, System.Text.Encoding.UTF8, "application/json"), token);
        Assert.Equal(HttpStatusCode.Accepted, fromFile.StatusCode);
        AssertIdentical(await gateway.Runs.WaitAsync(JsonDocument.Parse(await fromFile.Content.ReadAsStringAsync(token)).RootElement.GetProperty("id").GetGuid(), token), first, expected);
        var client = new Contracts.Gateway.Gateway.GatewayClient(gateway.Grpc);
        foreach (var request in new[] { new ReproduceRunRequest { ResultJson = resultJson }, new ReproduceRunRequest { RunId = first.ToString() } })
        {
            var started = await client.ReproduceRunAsync(request, cancellationToken: token);
            Assert.Equal(first.ToString(), started.Reproduction.Of);
            Assert.False(started.Reproduction.HasIdentical);
            await gateway.Runs.WaitAsync(Guid.Parse(started.RunId), token);
            var ended = await client.GetRunAsync(new RunRef { RunId = started.RunId }, cancellationToken: token);
            Assert.True(ended.Reproduction.Identical);
            Assert.Equal(expected, ended.Reproduction.Outputs.Count);
            Assert.All(ended.Reproduction.Outputs, o => Assert.True(o.Identical && o.Recorded == o.Reproduced, $"{o.Step}.{o.Name}"));
            Assert.Equal(steps["cluster"].GetProperty("digests").GetProperty("job").GetString(), ended.Steps.Single(s => s.Id == "cluster").Digests["job"]);
            Assert.Equal(provenance.GetProperty("platform").GetString(), ended.Provenance.Platform);
        }
    }

    [Fact]
    public async Task Reproduce_RecordedOnTheEmbeddedSilo_OnAGatewayWhoseServicesComputeOnASiloProcess_IsIdentical()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        string resultJson;
        await using (var embedded = await GatewayServer.StartAsync(directory.Combine("salsa.db"), new Dictionary<string, string?> { ["Cluster:Enabled"] = "true" }, token))
        {
            var first = await embedded.StartRunAsync(new { yaml = TestWorkflows.Small }, token);
            Assert.Equal(RunState.Succeeded, (await embedded.Runs.WaitAsync(first, token)).State);
            resultJson = (await embedded.GetRunAsync(first, token)).GetRawText();
        }

        // Another deployment: PostgreSQL keeps the state, a silo process computes, and the gateway's
        // services are its clients, finding it through the membership table.
        var connectionString = await postgres.NewDatabaseAsync();
        var clusterId = $"reproduce-{Guid.NewGuid():N}";
        using var silo = await SiloProcess.StartAsync(connectionString, clusterId, token);
        await using var client = await GatewayServer.StartAsync(directory.Combine("unused.db"), new Dictionary<string, string?>
        {
            ["ConnectionStrings:salsa"] = connectionString,
            ["Cluster:Enabled"] = "true",
            ["Cluster:Role"] = "client",
            ["Cluster:Id"] = clusterId,
        }, token);
        var again = await ReproduceAsync(client, JsonNode.Parse(resultJson)!, token);

        Assert.True(again.Reproduction?.Identical == true, again.Error ?? string.Join(", ", again.Reproduction!.Outputs.Where(o => !o.Identical).Select(o => $"{o.Step}.{o.Name}")));
        var placement = Assert.IsType<JsonArray>(again.Steps.Single(s => s.Id == "cluster").Outputs!["placement"]);
        Assert.All(placement, row => Assert.True(silo.Is((string?)row!["silos"]), $"{row} ran elsewhere than the silo process\n{silo.Output}"));
    }

    [Fact]
    public async Task Reproduce_ARecordThatDiffers_NamesTheFirstStepThatDiffers_AndPinsRecordedParameters()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var first = await gateway.StartRunAsync(new { yaml = TestWorkflows.Small }, token);
        await gateway.Runs.WaitAsync(first, token);
        var recorded = JsonNode.Parse((await gateway.GetRunAsync(first, token)).GetRawText())!;
        JsonNode Step(JsonNode run, string id) => run["steps"]!.AsArray().Single(s => (string?)s!["id"] == id)!;

        // A query output recorded otherwise (another machine's bits): the query is the first to differ,
        // what comes after it is still compared, and the run still succeeds.
        var tampered = recorded.DeepClone();
        Step(tampered, "query")["digests"]!["dataset"] = new string('0', 64);
        var differing = await ReproduceAsync(gateway, tampered, token);
        Assert.Equal(RunState.Succeeded, differing.State);
        Assert.False(differing.Reproduction!.Identical);
        Assert.Equal("query", differing.Reproduction.FirstDifference);
        Assert.Equal([("query", "dataset")], differing.Reproduction.Outputs.Where(o => !o.Identical).Select(o => (o.Step, o.Name)));

        // A step recorded with another value than the workflow text gives (a default since
        // changed): the recorded value is pinned and run, so the cluster's outputs follow it.
        var other = recorded.DeepClone();
        Step(other, "cluster")["parameters"]!["clusters"] = 4;
        var pinned = await ReproduceAsync(gateway, other, token);
        Assert.Equal(["cluster.clusters"], pinned.Reproduction!.Pinned);
        Assert.Equal(4, pinned.Steps.Single(s => s.Id == "cluster").Parameters!["clusters"]!.GetValue<int>());
        Assert.Equal(4, pinned.Steps.Single(s => s.Id == "cluster").Outputs!["clusters"]!.GetValue<int>());
        Assert.Equal("cluster", pinned.Reproduction.FirstDifference);
        Assert.All(pinned.Reproduction.Outputs.Where(o => o.Step != "cluster"), o => Assert.True(o.Identical, o.Name));
    }

    [Fact]
    public async Task Reproduce_WhatCannotBeReproduced_IsRefusedAndStartsNothing()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        // More clusters than the query's points: the service refuses it, and the run fails.
        var yaml = TestWorkflows.Small
            .Replace("inputs: { dataset: import.dataset }", "inputs: { dataset: import.dataset }\n    parameters: { counties: [\"18097\"] }", StringComparison.Ordinal)
            .Replace("clusters: 5, seed: 7 }", "clusters: 1000 }", StringComparison.Ordinal);
        var failed = await gateway.StartRunAsync(new { yaml }, token);
        Assert.Equal(RunState.Failed, (await gateway.Runs.WaitAsync(failed, token)).State);
        var recorded = JsonNode.Parse((await gateway.GetRunAsync(failed, token)).GetRawText())!;
        var succeededButBare = recorded.DeepClone();
        succeededButBare["state"] = "succeeded";
        succeededButBare.AsObject().Remove("provenance");

        using var conflict = await gateway.Http.PostAsync($"/api/runs/{failed}/reproduce", content: null, token);
        using var unknown = await gateway.Http.PostAsync($"/api/runs/{Guid.NewGuid()}/reproduce", content: null, token);
        using var notAnId = await gateway.Http.PostAsync("/api/runs/x/reproduce", content: null, token);
        using var bare = await gateway.Http.PostAsJsonAsync("/api/runs/reproduce", succeededButBare, token);
        using var broken = await gateway.Http.PostAsync("/api/runs/reproduce", new StringContent("{\"steps\": [", System.Text.Encoding.UTF8, "application/json"), token);
        var huge = await OversizedAsync(gateway, "/api/runs/reproduce", 2 << 20, token);
        var client = new Contracts.Gateway.Gateway.GatewayClient(gateway.Grpc);
        var grpcConflict = await Assert.ThrowsAsync<RpcException>(async () => await client.ReproduceRunAsync(new ReproduceRunRequest { RunId = failed.ToString() }, cancellationToken: token));
        var grpcBroken = await Assert.ThrowsAsync<RpcException>(async () => await client.ReproduceRunAsync(new ReproduceRunRequest { ResultJson = "[1, 2" }, cancellationToken: token));
        var grpcEmpty = await Assert.ThrowsAsync<RpcException>(async () => await client.ReproduceRunAsync(new ReproduceRunRequest(), cancellationToken: token));

        Assert.Equal(HttpStatusCode.Conflict, conflict.StatusCode);
        Assert.Contains("only a run that succeeded is reproduced", await conflict.Content.ReadAsStringAsync(token), StringComparison.Ordinal);
        Assert.Equal(HttpStatusCode.NotFound, unknown.StatusCode);
        Assert.Equal(HttpStatusCode.BadRequest, notAnId.StatusCode);
        Assert.Equal(HttpStatusCode.BadRequest, bare.StatusCode);
        Assert.Contains("provenance.workflow", await bare.Content.ReadAsStringAsync(token), StringComparison.Ordinal);
        Assert.Equal(HttpStatusCode.BadRequest, broken.StatusCode);
        Assert.True(huge is null or HttpStatusCode.RequestEntityTooLarge, $"a 2 MiB result.json: {huge}");
        Assert.Equal(StatusCode.FailedPrecondition, grpcConflict.StatusCode);
        Assert.Equal(StatusCode.InvalidArgument, grpcBroken.StatusCode);
        Assert.Equal(StatusCode.InvalidArgument, grpcEmpty.StatusCode);
        Assert.DoesNotContain(directory.Path, grpcBroken.Status.Detail, StringComparison.Ordinal);
        Assert.Single(await gateway.Runs.ListAsync(10, token));
    }

    private static async Task<RunView> ReproduceAsync(GatewayServer gateway, JsonNode recorded, CancellationToken token)
    {
        using var response = await gateway.Http.PostAsJsonAsync("/api/runs/reproduce", recorded, token);
        var body = await response.Content.ReadAsStringAsync(token);
        Assert.True(response.StatusCode == HttpStatusCode.Accepted, $"{response.StatusCode}: {body}");
        return await gateway.Runs.WaitAsync(JsonDocument.Parse(body).RootElement.GetProperty("id").GetGuid(), token);
    }

    private static void AssertIdentical(RunView run, Guid of, int outputs)
    {
        Assert.True(run.State == RunState.Succeeded, run.Error);
        var reproduction = Assert.IsType<Runs.RunReproduction>(run.Reproduction);
        Assert.Equal(of, reproduction.Of);
        Assert.True(reproduction.Identical, string.Join(", ", reproduction.Outputs.Where(o => !o.Identical).Select(o => $"{o.Step}.{o.Name}")));
        Assert.Null(reproduction.FirstDifference);
        Assert.Equal(outputs, reproduction.Outputs.Count);
        Assert.Contains(reproduction.Outputs, o => o.File);
    }

    /// <summary>
    /// POSTs a JSON body of about <paramref name="bytes"/>: the status, or null when the gateway refused
    /// it before reading it all and closed the connection under the client's write (a broken pipe).
    /// </summary>
    private static async Task<HttpStatusCode?> OversizedAsync(GatewayServer gateway, string path, int bytes, CancellationToken token)
    {
        try
        {
            using var response = await gateway.Http.PostAsync(path, new StringContent($"{{\"x\":\"{new string('a', bytes)}\"}}", System.Text.Encoding.UTF8, "application/json"), token);
            return response.StatusCode;
        }
        catch (HttpRequestException exception) when (exception.InnerException is IOException)
        {
            return null;
        }
    }
}
