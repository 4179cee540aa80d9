using System.Net;
using System.Text.Json;
using Google.Protobuf.WellKnownTypes;
using Grpc.Core;
using Microsoft.Extensions.DependencyInjection;
using Salsa.Contracts.Gateway;
using Salsa.Gateway.Runs;
using Salsa.Hosting.Host;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The runs history: filtered pages of the caller's runs with their total (REST's X-Total-Count,
/// gRPC's total) over a store holding a few hundred, bad filters refused, and the runs' feed — live
/// over server-sent events, and each watcher hearing its own tenant only under contention.
/// </summary>
public sealed class RunsHistoryTests
{
    private static readonly string[] Workflows = ["census-indiana", "chem-40k", "census-places"];
    private static readonly JobState[] States = [JobState.Succeeded, JobState.Failed, JobState.Cancelled, JobState.Interrupted];

    /// <summary>
    /// <paramref name="mine"/> finished runs of the local tenant an hour apart before <paramref name="now"/>
    /// (three workflows in turn, four end states in turn), then <paramref name="others"/> of another tenant.
    /// </summary>
    internal static async Task<List<JobRecord>> SeedAsync(GatewayServer gateway, DateTimeOffset now, int mine, int others, CancellationToken token)
    {
        var store = gateway.App.Services.GetRequiredService<IDataStore>();
        var records = new List<JobRecord>();
        for (var i = 0; i < mine + others; i++)
        {
            var id = Guid.NewGuid();
            var created = now.AddHours(-(i + 1));
            // Three steps ending as the run did: the first succeeded, the second in the run's end
            // state, the third skipped after a failure or cancel (succeeded with a succeeded run).
            var end = States[i % 4] switch
            {
                JobState.Succeeded => StepState.Succeeded,
                JobState.Failed => StepState.Failed,
                JobState.Cancelled => StepState.Cancelled,
                _ => StepState.Running,
            };
            StepView[] steps =
            [
                new() { Id = "import", Service = "census", Operation = "import", State = StepState.Succeeded, DurationMs = 120 + i },
                new() { Id = "cluster", Service = "annealing", Operation = "cluster", State = end, DurationMs = end == StepState.Running ? null : 3000 + i },
                new() { Id = "map", Service = "render", Operation = "census-map", State = end == StepState.Succeeded ? StepState.Succeeded : StepState.Skipped },
            ];
            var view = new RunView { Id = id, Workflow = Workflows[i % 3], Created = created, WorkflowVersion = "0123456789ab", Steps = steps };
            var record = new JobRecord
            {
                Id = id, Service = RunManager.Service, Kind = view.Workflow, State = States[i % 4], Created = created,
                Started = created.AddSeconds(1), Finished = created.AddSeconds(20),
                ResultJson = JsonSerializer.Serialize(view, JsonSerializerOptions.Web),
                Tenant = i < mine ? Tenants.Local : "another-tenant",
            };
            await store.InsertJobAsync(record, token);
            records.Add(record);
        }

        return records;
    }

    [Fact]
    public async Task ListRuns_FiltersAndPages_OverRestAndGrpc_MatchTheStoredRuns()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var now = DateTimeOffset.UtcNow;
        var mine = (await SeedAsync(gateway, now, 240, 30, token)).Where(r => r.Tenant == Tenants.Local).ToList();
        var client = new Contracts.Gateway.Gateway.GatewayClient(gateway.Grpc);

        var cases = new (string Query, Func<JobRecord, bool> Selects, ListRunsRequest Grpc)[]
        {
            ("", _ => true, new ListRunsRequest()),
            ("state=failed", r => r.State == JobState.Failed, new ListRunsRequest { State = "failed" }),
            ("workflow=chem-40k&state=Succeeded", r => r.Kind == "chem-40k" && r.State == JobState.Succeeded, new ListRunsRequest { Workflow = "chem-40k", State = "succeeded" }),
            ($"from={Uri.EscapeDataString(now.AddHours(-48).ToString("O"))}&before={Uri.EscapeDataString(now.AddHours(-24).ToString("O"))}",
                r => r.Created >= now.AddHours(-48) && r.Created < now.AddHours(-24),
                new ListRunsRequest { CreatedFrom = Timestamp.FromDateTimeOffset(now.AddHours(-48)), CreatedBefore = Timestamp.FromDateTimeOffset(now.AddHours(-24)) }),
        };
        foreach (var (query, selects, grpc) in cases)
        {
            var expected = mine.Where(selects).OrderByDescending(r => r.Created).Select(r => r.Id).ToList();
            foreach (var (offset, limit) in new[] { (0, 50), (50, 50), (7, 3), (expected.Count, 10) })
            {
                using var response = await gateway.Http.GetAsync($"/api/runs?{query}&offset={offset}&limit={limit}", token);
                var body = await response.Content.ReadAsStringAsync(token);
                Assert.True(response.StatusCode == HttpStatusCode.OK, $"{query}: {response.StatusCode} {body}");
                Assert.Equal(expected.Count.ToString(System.Globalization.CultureInfo.InvariantCulture), Assert.Single(response.Headers.GetValues("X-Total-Count")));
                Assert.Equal(expected.Skip(offset).Take(limit), JsonDocument.Parse(body).RootElement.EnumerateArray().Select(r => r.GetProperty("id").GetGuid()));

                // Each run's steps as the grid draws them: the stored steps' ids and states in order.
                foreach (var run in JsonDocument.Parse(body).RootElement.EnumerateArray())
                {
                    var stored = JsonSerializer.Deserialize<RunView>(mine.Single(r => r.Id == run.GetProperty("id").GetGuid()).ResultJson!, JsonSerializerOptions.Web)!;
                    Assert.Equal(
                        stored.Steps.Select(s => $"{s.Id}:{JsonSerializer.Serialize(s.State, JsonSerializerOptions.Web).Trim('"')}"),
                        run.GetProperty("stepStates").EnumerateArray().Select(c => $"{c.GetProperty("id").GetString()}:{c.GetProperty("state").GetString()}"));
                }

                grpc.Offset = offset;
                grpc.Limit = limit;
                var page = await client.ListRunsAsync(grpc, cancellationToken: token);
                Assert.Equal(expected.Count, page.Total);
                Assert.Equal(expected.Skip(offset).Take(limit), page.Runs.Select(r => Guid.Parse(r.RunId)));
            }
        }
    }

    [Theory]
    [InlineData("state=bogus", "state 'bogus' is not a run's state")]
    [InlineData("state=7", "state '7' is not a run's state")]
    [InlineData("limit=0", "limit must be between 1 and 1000")]
    [InlineData("limit=1001", "limit must be between 1 and 1000")]
    [InlineData("offset=-1", "offset must be between 0 and 1,000,000")]
    [InlineData("offset=1000001", "offset must be between 0 and 1,000,000")]
    [InlineData("from=2026-11-02T00:00:00Z&before=2026-11-01T00:00:00Z", "before must be later than from")]
    public async Task ListRuns_BadFilter_Is400NamingIt_OverRestAndGrpc(string query, string detail)
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);

        using var response = await gateway.Http.GetAsync($"/api/runs?{query}", token);
        var body = await response.Content.ReadAsStringAsync(token);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Contains(detail, JsonDocument.Parse(body).RootElement.GetProperty("detail").GetString(), StringComparison.Ordinal);
        var request = new ListRunsRequest();
        foreach (var pair in query.Split('&').Select(p => p.Split('=')))
        {
            switch (pair[0])
            {
                case "state": request.State = pair[1]; break;
                case "limit": request.Limit = int.Parse(pair[1], System.Globalization.CultureInfo.InvariantCulture); break;
                case "offset": request.Offset = int.Parse(pair[1], System.Globalization.CultureInfo.InvariantCulture); break;
                case "from": request.CreatedFrom = Timestamp.FromDateTimeOffset(DateTimeOffset.Parse(pair[1], System.Globalization.CultureInfo.InvariantCulture)); break;
                case "before": request.CreatedBefore = Timestamp.FromDateTimeOffset(DateTimeOffset.Parse(pair[1], System.Globalization.CultureInfo.InvariantCulture)); break;
            }
        }

        if (request.Limit == 0 && query == "limit=0")
        {
            return; // gRPC's 0 is proto3's unset: 50
        }

        var error = await Assert.ThrowsAsync<RpcException>(() => new Contracts.Gateway.Gateway.GatewayClient(gateway.Grpc).ListRunsAsync(request, cancellationToken: token).ResponseAsync);
        Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
        Assert.Contains(detail, error.Status.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RunsEvents_SaysReady_ThenEachRunAcceptedAndEnded()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var events = ServerSentEventsReader.ReadAsync(gateway.Http, "/api/runs/events", token).GetAsyncEnumerator(token);
        Assert.True(await events.MoveNextAsync());
        Assert.Equal("ready", events.Current.Name);
        var id = await gateway.StartRunAsync(new { workflow = "census-indiana", parameters = new Dictionary<string, object> { ["cluster.maxClusters"] = 3 } }, token);
        var seen = new List<string>();
        while (await events.MoveNextAsync())
        {
            Assert.Equal("run", events.Current.Name);
            Assert.Equal(id, events.Current.Data.GetProperty("id").GetGuid());
            seen.Add(events.Current.Data.GetProperty("state").GetString()!);
            if (seen[^1] is "succeeded" or "failed")
            {
                break;
            }
        }

        Assert.Equal(["queued", "running", "succeeded"], seen.Distinct());
        await events.DisposeAsync();
    }

    [Fact]
    public async Task FinishedRun_KeepsEachStepsProgressHistory_ForItsConvergenceCharts()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var id = await gateway.StartRunAsync(new { workflow = "census-indiana" }, token);
        Assert.Equal(RunState.Succeeded, (await gateway.Runs.WaitAsync(id, token)).State);

        // Read back from the store, as a page opened after the run reads it.
        var cluster = (await gateway.GetRunAsync(id, token)).GetProperty("steps").EnumerateArray().Single(s => s.GetProperty("id").GetString() == "cluster");
        var history = cluster.GetProperty("progressHistory").EnumerateArray().ToList();
        Assert.InRange(history.Count, 2, StepView.ProgressHistoryLimit);
        Assert.Equal(cluster.GetProperty("progress").ToString(), history[^1].ToString());
        var elapsed = history.Select(p => p.GetProperty("elapsedMs").GetDouble()).ToList();
        Assert.Equal(elapsed.Order(), elapsed);
    }

    [Fact]
    public void ProgressHistory_ManyReports_ThinnedToTheLimitKeepingFirstLastAndOrder()
    {
        IReadOnlyList<StepProgress> history = [];
        for (var i = 0; i < 5000; i++)
        {
            history = ProgressHistory.Append(history, new StepProgress("anneal", i, 1.0 / (i + 1), 1 + i / 500, -i, i));
            Assert.InRange(history.Count, 1, StepView.ProgressHistoryLimit);
            Assert.Equal(0, history[0].Iteration);
            Assert.Equal(i, history[^1].Iteration);
        }

        Assert.True(history.Count >= StepView.ProgressHistoryLimit / 2, $"{history.Count} points kept");
        Assert.Equal(history.Select(p => p.Iteration).Order(), history.Select(p => p.Iteration));
    }

    [Fact]
    public async Task Services_Health_ServingIdleOrUnreachable_AsEachServiceIs()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        var nowhere = $"http://127.0.0.1:{ServicePorts.NextFreeLoopbackPort()}"; // nothing listens there
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"),
            new Dictionary<string, string?> { ["Gateway:Services:mds"] = nowhere, ["Gateway:WarmStart"] = "false" }, token);
        Assert.Equal(RunState.Succeeded, (await gateway.Runs.WaitAsync(await gateway.StartRunAsync(new { workflow = "census-indiana" }, token), token)).State);

        var health = JsonDocument.Parse(await gateway.Http.GetStringAsync("/api/services", token)).RootElement.EnumerateArray()
            .ToDictionary(s => s.GetProperty("name").GetString()!, s => s.GetProperty("health").GetString());

        Assert.Equal("unreachable", health["mds"]);
        Assert.Equal("serving", health["census"]); // started by the run
        Assert.Equal("serving", health["annealing"]);
        Assert.Equal("idle", health["chem"]); // embedded, never needed: not started by asking
        Assert.Equal("idle", JsonDocument.Parse(await gateway.Http.GetStringAsync("/api/services", token)).RootElement.EnumerateArray()
            .Single(s => s.GetProperty("name").GetString() == "chem").GetProperty("health").GetString());
    }

    [Fact]
    public void RunFeed_ManyWatchersAndPublishersAtOnce_EachWatcherHearsItsTenantOnly()
    {
        // Watchers come and go while runs of three tenants change on many threads: nobody hears
        // another tenant's run, nothing throws, and a watcher that stays hears its own tenant's.
        var feed = new RunFeed();
        string[] tenants = ["alpha", "beta", "gamma"];
        var views = tenants.ToDictionary(t => t, t => new RunView { Id = Guid.NewGuid(), Workflow = $"of-{t}" });
        var staying = tenants.ToDictionary(t => t, feed.Watch);
        var wrong = 0;
        var heard = 0;
        Parallel.For(0, 4000, new ParallelOptions { MaxDegreeOfParallelism = 16 }, i =>
        {
            var tenant = tenants[i % 3];
            if (i % 4 == 0)
            {
                var reader = feed.Watch(tenant);
                feed.Publish(tenant, views[tenant]);
                feed.Publish(tenants[(i + 1) % 3], views[tenants[(i + 1) % 3]]);
                while (reader.TryRead(out var summary))
                {
                    Interlocked.Increment(ref heard);
                    if (summary.Workflow != $"of-{tenant}")
                    {
                        Interlocked.Increment(ref wrong);
                    }
                }

                feed.Unwatch(reader);
            }
            else
            {
                feed.Publish(tenant, views[tenant]);
            }
        });

        Assert.Equal(0, wrong);
        Assert.True(heard >= 1000, $"the short watchers heard {heard} notices; each should hear at least its own");
        foreach (var (tenant, reader) in staying)
        {
            var count = 0;
            while (reader.TryRead(out var summary))
            {
                Assert.Equal($"of-{tenant}", summary.Workflow);
                count++;
            }

            Assert.True(count > 0, $"{tenant}'s watcher heard nothing");
        }
    }
}
