using System.Text.Json.Nodes;
using Microsoft.Extensions.DependencyInjection;
using Salsa.Gateway.Runs;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>Runs kept in PostgreSQL (a real server started for the test run): the same life as in SQLite.</summary>
public sealed class PostgresRunStoreTests(PostgresFixture postgres)
{
    [Fact]
    public async Task RunsInPostgres_SurviveARestartMidRun_AndFinishedOnesAreAllThere()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        var settings = new Dictionary<string, string?> { ["ConnectionStrings:salsa"] = await postgres.NewDatabaseAsync() };
        Guid finished, inFlight;
        await using (var first = await GatewayServer.StartAsync(directory.Combine("unused.db"), settings, token))
        {
            finished = await first.StartRunAsync(new { workflow = "census-indiana", parameters = new Dictionary<string, object> { ["cluster.maxClusters"] = 4 } }, token);
            Assert.Equal(RunState.Succeeded, (await first.Runs.WaitAsync(finished, token)).State);
            inFlight = await first.StartRunAsync(new { workflow = "census-indiana" }, token);
            await first.EventsAsync(inFlight, (e, d) => e == "progress" && d.GetProperty("step").GetString() == "cluster", token);
            await first.StopAsync();
        }

        Assert.False(File.Exists(directory.Combine("unused.db"))); // everything went to PostgreSQL
        await using var second = await GatewayServer.StartAsync(directory.Combine("unused.db"), settings, token);
        var resumed = await second.Runs.WaitAsync(inFlight, token);
        Assert.True(resumed.State == RunState.Succeeded, resumed.Error);
        Assert.Equal(1, resumed.Resumes);

        var before = await second.Runs.GetRequiredAsync(finished, token);
        Assert.Equal(RunState.Succeeded, before.State);
        Assert.Equal(11, before.Hops.Count); // import and query (each its call and its dataset's digest read), cluster (start, watch, result, its files listed), map (start, watch, its files listed)
        Assert.Equal(3, before.Artifacts.Count);
        var png = await second.Http.GetByteArrayAsync($"/api/runs/{finished}/artifacts/map.png", token);
        Assert.Equal(before.Artifacts.Single(a => a.Name == "map.png").Size, png.Length);

        // A run recorded before files stayed with their jobs names no job and kept its own copy: that copy is served.
        var store = second.App.Services.GetRequiredService<IDataStore>();
        var record = (await store.GetJobAsync(finished, token))!;
        var legacy = JsonNode.Parse(record.ResultJson!)!;
        foreach (var artifact in legacy["artifacts"]!.AsArray())
        {
            artifact!.AsObject().Remove("job");
        }

        await store.UpdateJobAsync(record with { ResultJson = legacy.ToJsonString() }, token);
        await store.PutArtifactAsync(finished, new Artifact("map.png", "image/png", [1, 2, 3]), token);
        Assert.Equal([1, 2, 3], await second.Http.GetByteArrayAsync($"/api/runs/{finished}/artifacts/map.png", token));
        Assert.Equal([inFlight, finished], (await second.Runs.ListAsync(10, token)).Select(r => r.Id));
    }
}
