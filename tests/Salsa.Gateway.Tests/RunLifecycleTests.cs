using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Grpc.Core;
using Microsoft.Extensions.DependencyInjection;
using Salsa.Census;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Gateway;
using Salsa.Gateway.Runs;
using Salsa.KMeans;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>Runs survive restarts, can be cancelled, fail clearly, retry, and reach remote services when addressed.</summary>
public sealed class RunLifecycleTests
{
    [Fact]
    public async Task EveryCallBegunInFlight_LandsAsItsHop_AndNoneIsLeftFlying()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var id = await gateway.StartRunAsync(new { workflow = "census-indiana" }, token);
        var events = await gateway.EventsAsync(id, cancellationToken: token);

        static string Key(JsonElement e) => $"{e.GetProperty("step").GetString()}|{e.GetProperty("service").GetString()}|{e.GetProperty("operation").GetString()}|{e.GetProperty("start").GetString()}";
        var begun = events.Select((e, i) => (e, i)).Where(x => x.e.Event == "hop-start").ToDictionary(x => Key(x.e.Data), x => x.i);
        var landed = events.Select((e, i) => (e, i)).Where(x => x.e.Event == "hop").ToDictionary(x => Key(x.e.Data), x => x.i);

        Assert.Contains(begun.Keys, k => k.StartsWith("cluster|annealing|Jobs.Watch|", StringComparison.Ordinal));
        Assert.All(begun, b => Assert.True(landed.TryGetValue(b.Key, out var at) && at > b.Value, $"{b.Key} began and never landed after it"));
        var final = events.Last(e => e.Event == "run").Data;
        Assert.Equal("succeeded", final.GetProperty("state").GetString());
        Assert.Equal(0, final.GetProperty("hopsInFlight").GetArrayLength());
        Assert.Equal(0, (await gateway.GetRunAsync(id, token)).GetProperty("hopsInFlight").GetArrayLength());
    }

    [Fact]
    public async Task StepWaitingInAServicesQueue_IsShownQueued_ThenRunning()
    {
        // Three runs at once: the annealing service runs one job at a time (its default), so at least
        // two runs' cluster steps wait in its queue — their step says so (jobState queued) before it
        // says running, and every one ends succeeded.
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var ids = new List<Guid>();
        for (var i = 0; i < 3; i++)
        {
            ids.Add(await gateway.StartRunAsync(new { workflow = "census-indiana" }, token));
        }

        // The cluster step's job state as each run's events show it (a step event, or a run event's steps).
        static string? ClusterJobState(string name, JsonElement data)
        {
            var step = name == "step" ? data : name == "run" ? data.GetProperty("steps").EnumerateArray().FirstOrDefault(s => s.GetProperty("id").GetString() == "cluster") : default;
            return step.ValueKind == JsonValueKind.Object && step.GetProperty("id").GetString() == "cluster"
                && step.TryGetProperty("jobState", out var state) && state.ValueKind == JsonValueKind.String ? state.GetString() : null;
        }

        var states = await Task.WhenAll(ids.Select(async id =>
        {
            var seen = new List<string>();
            foreach (var state in (await gateway.EventsAsync(id, cancellationToken: token)).Select(e => ClusterJobState(e.Event, e.Data)).OfType<string>())
            {
                if (seen.Count == 0 || seen[^1] != state)
                {
                    seen.Add(state);
                }
            }

            return seen;
        }));

        Assert.All(states, s => Assert.Equal("succeeded", s[^1]));
        Assert.True(states.Count(s => s.Contains("queued") && s.IndexOf("queued") < s.IndexOf("running")) >= 2,
            $"cluster job states per run: {string.Join(" | ", states.Select(s => string.Join(" → ", s)))}");
        foreach (var id in ids)
        {
            Assert.Equal(RunState.Succeeded, (await gateway.Runs.WaitAsync(id, token)).State);
        }
    }

    [Fact]
    public async Task GatewayRestartMidRun_ResumesTheRun_KeepingTheStepsThatHadFinished()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        var store = directory.Combine("salsa.db");
        Guid id;
        await using (var first = await GatewayServer.StartAsync(store, cancellationToken: token))
        {
            id = await first.StartRunAsync(new { workflow = "census-indiana" }, token);
            await first.EventsAsync(id, (e, d) => e == "progress" && d.GetProperty("step").GetString() == "cluster", token);
            await first.StopAsync(); // mid-annealing
        }

        await using var second = await GatewayServer.StartAsync(store, cancellationToken: token);
        var final = await second.Runs.WaitAsync(id, token);

        Assert.True(final.State == RunState.Succeeded, final.Error);
        Assert.Equal(1, final.Resumes);
        Assert.True(final.Steps.Single(s => s.Id == "import").Reused);
        Assert.True(final.Steps.Single(s => s.Id == "query").Reused);
        Assert.False(final.Steps.Single(s => s.Id == "cluster").Reused);
        // The hops of both gateway processes are kept: the first annealing start, cut short, and the second.
        Assert.Equal(2, final.Hops.Count(h => h.Step == "cluster" && h.Operation == "Start"));
        // The import ran once (its call, then the read of its dataset's digest) and kept its digest.
        Assert.Equal(["Import", "Datasets.Get"], final.Hops.Where(h => h.Step == "import").Select(h => h.Operation));
        Assert.Matches("^[0-9a-f]{64}$", final.Steps.Single(s => s.Id == "import").Digests!["dataset"]);
        Assert.Equal(3, final.Artifacts.Count);
        Assert.Contains(await second.Runs.ListAsync(10, token), r => r.Id == id && r.State == RunState.Succeeded);
    }

    [Fact]
    public async Task RunsEndBeforeTheirFinalWrite_YetEveryReadAfterTheEndShowsIt_AndAStopStoresThemAll()
    {
        // A waiter hears a run's end before its final view is stored (bench/results/gateway.md). 16
        // callers × 25 one-step runs after a first: each watched from its submit ends with its final
        // state; right after each wait, the run read alone and in the list is
        // already succeeded, while the store may still be writing it; the gateway is then disposed
        // at once, and a new one on the same store finds every run succeeded, none to resume.
        const string Yaml = """
            name: store-race
            steps:
              import: { service: census, operation: import, parameters: { source: indiana-1000 } }
            """;
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        var store = directory.Combine("salsa.db");
        var ids = new System.Collections.Concurrent.ConcurrentBag<Guid>();
        await using (var first = await GatewayServer.StartAsync(store, new Dictionary<string, string?> { ["Gateway:Runs:Concurrent"] = "16", ["Gateway:Runs:QueueDepth"] = "64" }, token))
        {
            var imported = await first.Runs.SubmitAsync(new RunRequest { Yaml = Yaml }, token); // imports the file once
            ids.Add((await first.Runs.WaitAsync(imported.Id, token)).Id);
            await Task.WhenAll(Enumerable.Range(0, 16).Select(_ => Task.Run(async () =>
            {
                for (var i = 0; i < 25; i++)
                {
                    var run = await first.Runs.SubmitAsync(new RunRequest { Yaml = Yaml }, token);
                    // Watched as a REST client does, right after the submit, so the watch often begins as the run ends.
                    Salsa.Gateway.Runs.RunEvent? last = null;
                    await foreach (var item in first.Runs.WatchAsync(run.Id, token))
                    {
                        last = item is Salsa.Gateway.Runs.RunEvent.RunChanged ? item : last;
                    }

                    Assert.Equal(RunState.Succeeded, Assert.IsType<Salsa.Gateway.Runs.RunEvent.RunChanged>(last).View.State);
                    var final = await first.Runs.WaitAsync(run.Id, token);
                    Assert.True(final.State == RunState.Succeeded, final.Error);
                    Assert.Equal(RunState.Succeeded, (await first.Runs.GetRequiredAsync(run.Id, token)).State);
                    var listed = (await first.Runs.QueryAsync(new RunQuery { Workflow = "store-race", Limit = 100 }, token)).Runs;
                    Assert.Equal(RunState.Succeeded, Assert.Single(listed, r => r.Id == run.Id).State);
                    ids.Add(run.Id);
                }
            }, token)));
        }

        await using var second = await GatewayServer.StartAsync(store, cancellationToken: token);
        var page = await second.Runs.QueryAsync(new RunQuery { Workflow = "store-race", Limit = 500 }, token);
        Assert.Equal(401, page.Total);
        Assert.All(page.Runs, r => Assert.True(r.State == RunState.Succeeded && r.Resumes == 0, $"{r.Id}: {r.State}, resumed {r.Resumes}×"));
        Assert.Equal(ids.Order(), page.Runs.Select(r => r.Id).Order());
    }

    [Fact]
    public async Task ARunTheStoreRefuses_FailsItsSubmit_AndIsNeverListedNorWritten_WhileItsNeighboursRun()
    {
        // A run starts while its insert is made (bench/results/gateway.md). The store here refuses the
        // insert of every run of one workflow (a trigger in the real SQLite file), not its later writes:
        // 8 callers × 20 submits, refused and accepted in turn, on 2 run slots. Every refused submit
        // throws the store's reason; none of those runs is ever heard of in the runs list, nor written
        // by its steps or its end, nor holds a slot (the accepted ones, on 2 slots, all run); every
        // accepted run succeeds and is stored.
        const string Accepted = """
            name: store-accepted
            steps:
              import: { service: census, operation: import, parameters: { source: indiana-1000 } }
            """;
        var refused = Accepted.Replace("store-accepted", "store-refused", StringComparison.Ordinal);
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        var store = directory.Combine("salsa.db");
        await using (var gateway = await GatewayServer.StartAsync(store, new Dictionary<string, string?> { ["Gateway:Runs:Concurrent"] = "2", ["Gateway:Runs:QueueDepth"] = "64" }, token))
        {
            await gateway.Runs.WaitAsync((await gateway.Runs.SubmitAsync(new RunRequest { Yaml = Accepted }, token)).Id, token); // imports the file once
            await using (var connection = new Microsoft.Data.Sqlite.SqliteConnection($"Data Source={store};Pooling=False"))
            {
                await connection.OpenAsync(token);
                await using var trigger = connection.CreateCommand();
                trigger.CommandText = $"""
                    CREATE TRIGGER refuse_runs BEFORE INSERT ON jobs WHEN NEW.kind = 'store-refused' AND NEW.state = {(int)Salsa.Store.JobState.Queued}
                    BEGIN SELECT RAISE(ABORT, 'refused by the test'); END;
                    """;
                await trigger.ExecuteNonQueryAsync(token);
            }

            using var watching = CancellationTokenSource.CreateLinkedTokenSource(token);
            var heard = new System.Collections.Concurrent.ConcurrentBag<string>();
            var began = new TaskCompletionSource();
            var listening = Task.Run(async () =>
            {
                try
                {
                    await foreach (var summary in gateway.Runs.WatchListAsync(watching.Token))
                    {
                        if (summary is null)
                        {
                            began.TrySetResult();
                        }
                        else
                        {
                            heard.Add(summary.Workflow);
                        }
                    }
                }
                catch (OperationCanceledException)
                {
                }
            }, token);
            await began.Task.WaitAsync(token);

            var accepted = new System.Collections.Concurrent.ConcurrentBag<Guid>();
            await Task.WhenAll(Enumerable.Range(0, 8).Select(_ => Task.Run(async () =>
            {
                for (var i = 0; i < 20; i++)
                {
                    if (i % 2 == 0)
                    {
                        var failure = await Assert.ThrowsAnyAsync<Exception>(() => gateway.Runs.SubmitAsync(new RunRequest { Yaml = refused }, token));
                        Assert.Contains("refused by the test", failure.ToString(), StringComparison.Ordinal);
                    }
                    else
                    {
                        var run = await gateway.Runs.SubmitAsync(new RunRequest { Yaml = Accepted }, token);
                        var final = await gateway.Runs.WaitAsync(run.Id, token);
                        Assert.True(final.State == RunState.Succeeded, final.Error);
                        accepted.Add(run.Id);
                    }
                }
            }, token)));

            var listed = await gateway.Runs.QueryAsync(new RunQuery { Workflow = "store-refused", Limit = 10 }, token);
            Assert.Equal(0, listed.Total);
            await watching.CancelAsync();
            await listening;
            Assert.DoesNotContain("store-refused", heard);
            Assert.Contains("store-accepted", heard);
            Assert.Equal(80, accepted.Count);
        }

        // Nothing of a refused run reached the file, even after every write the gateway had left.
        await using var check = new Microsoft.Data.Sqlite.SqliteConnection($"Data Source={store};Pooling=False");
        await check.OpenAsync(token);
        await using var count = check.CreateCommand();
        count.CommandText = "SELECT kind, state, count(*) FROM jobs WHERE service = 'gateway.runs' GROUP BY kind, state ORDER BY kind;";
        var rows = new List<string>();
        await using (var reader = await count.ExecuteReaderAsync(token))
        {
            while (await reader.ReadAsync(token))
            {
                rows.Add($"{reader.GetString(0)}:{(Salsa.Store.JobState)reader.GetInt32(1)}:{reader.GetInt64(2)}");
            }
        }

        Assert.Equal(["store-accepted:Succeeded:81"], rows);
    }

    [Fact]
    public async Task GatewayRestartWithResumingOff_MarksTheRunInterruptedWithTheReason()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        var store = directory.Combine("salsa.db");
        var noResume = new Dictionary<string, string?> { ["Gateway:Runs:ResumeInterrupted"] = "false" };
        Guid id;
        await using (var first = await GatewayServer.StartAsync(store, noResume, token))
        {
            id = await first.StartRunAsync(new { workflow = "census-indiana" }, token);
            await first.EventsAsync(id, (e, d) => e == "progress" && d.GetProperty("step").GetString() == "cluster", token);
            await first.StopAsync();
        }

        await using var second = await GatewayServer.StartAsync(store, noResume, token);
        var run = await second.GetRunAsync(id, token);

        Assert.Equal("interrupted", run.GetProperty("state").GetString());
        var error = run.GetProperty("error").GetString()!;
        Assert.Contains("gateway stopped while the run was in flight", error, StringComparison.Ordinal);
        Assert.Contains("Steps that had finished: import, query", error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task EventStream_EveryEventSentFitsTheSchemaTheOpenApiDocumentMapsItsNameTo()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var document = await OpenApiAsync(gateway, token);
        var declared = OpenApiEvents.Declared(document, "/api/runs/{id}/events");
        Assert.Equal(["hop", "hop-start", "progress", "run", "step"], declared.Keys.Order(StringComparer.Ordinal));

        var events = await gateway.EventsAsync(await gateway.StartRunAsync(new { yaml = TestWorkflows.Small }, token), cancellationToken: token);

        Assert.Equal(["hop", "hop-start", "progress", "run", "step"], events.Select(e => e.Event).Distinct().Order(StringComparer.Ordinal));
        Assert.Empty(events.SelectMany(e => OpenApiEvents.Misfits(document, declared, e.Event, e.Data)).Distinct());
    }

    [Fact]
    public async Task StartRun_AskedForEvents_AnswersWithTheRunsEventsToItsEnd_RefusesWithProblemDetails_AndACallerThatLeavesStopsOnlyItsStream()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var document = await OpenApiAsync(gateway, token);
        var declared = OpenApiEvents.Declared(document, "/api/runs", "post");
        Assert.Equal(OpenApiEvents.Declared(document, "/api/runs/{id}/events"), declared);
        Assert.True(document.GetProperty("paths").GetProperty("/api/runs").GetProperty("post").GetProperty("responses").TryGetProperty("202", out _));

        // One request: the run starts and its events follow, as GET /api/runs/{id}/events sends them.
        var events = new List<(string Event, JsonElement Data)>();
        await foreach (var item in ServerSentEventsReader.ReadAsync(gateway.Http, StartWithEvents(new { yaml = TestWorkflows.Small }), token))
        {
            events.Add(item);
        }

        Assert.Equal("run", events[0].Event);
        var id = events[0].Data.GetProperty("id").GetGuid();
        Assert.Equal(["hop", "hop-start", "progress", "run", "step"], events.Select(e => e.Event).Distinct().Order(StringComparer.Ordinal));
        Assert.Empty(events.SelectMany(e => OpenApiEvents.Misfits(document, declared, e.Event, e.Data)).Distinct());
        Assert.All(events.Where(e => e.Event == "run"), e => Assert.Equal(id, e.Data.GetProperty("id").GetGuid()));
        var last = events[^1];
        Assert.Equal("run", last.Event);
        Assert.Equal("succeeded", last.Data.GetProperty("state").GetString());
        Assert.Equal("succeeded", (await gateway.GetRunAsync(id, token)).GetProperty("state").GetString());

        // Refused before it starts: the same ProblemDetails as without events, and no run.
        async Task<int> ListedAsync() => JsonDocument.Parse(await gateway.Http.GetStringAsync("/api/runs?limit=1000", token)).RootElement.GetArrayLength();
        var before = await ListedAsync();
        foreach (var bad in new object[] { new { workflow = "census-mars" }, new { }, new { yaml = "name: x\nsteps:\n  a: [" } })
        {
            using var refused = await gateway.Http.SendAsync(StartWithEvents(bad), token);
            Assert.True(refused.StatusCode is HttpStatusCode.BadRequest or HttpStatusCode.NotFound, $"{refused.StatusCode}");
            Assert.Equal("application/problem+json", refused.Content.Headers.ContentType?.MediaType);
            var problem = JsonDocument.Parse(await refused.Content.ReadAsStringAsync(token)).RootElement;
            Assert.Equal((int)refused.StatusCode, problem.GetProperty("status").GetInt32());
            Assert.False(string.IsNullOrEmpty(problem.GetProperty("detail").GetString()));
        }

        Assert.Equal(before, await ListedAsync());
        using var watchUnknown = new HttpRequestMessage(HttpMethod.Get, $"/api/runs/{Guid.NewGuid()}/events"); // as a browser's EventSource asks
        watchUnknown.Headers.Accept.ParseAdd("text/event-stream");
        using var unknown = await gateway.Http.SendAsync(watchUnknown, token);
        Assert.Equal(HttpStatusCode.NotFound, unknown.StatusCode);
        Assert.Equal("application/problem+json", unknown.Content.Headers.ContentType?.MediaType);

        // A caller that leaves after the first event (Location names its run): its stream ends, the
        // run goes on to its end.
        Guid leftBehind;
        using (var response = await gateway.Http.SendAsync(StartWithEvents(new { yaml = TestWorkflows.Small }), HttpCompletionOption.ResponseHeadersRead, token))
        {
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            Assert.Equal("text/event-stream", response.Content.Headers.ContentType?.MediaType);
            leftBehind = Guid.Parse(response.Headers.Location!.ToString()["/api/runs/".Length..]);
            using var reader = new StreamReader(await response.Content.ReadAsStreamAsync(token));
            Assert.Equal("event: run", await reader.ReadLineAsync(token));
            var first = JsonDocument.Parse((await reader.ReadLineAsync(token))!["data: ".Length..]).RootElement;
            Assert.Equal(leftBehind, first.GetProperty("id").GetGuid());
        }

        var ended = await gateway.EventsAsync(leftBehind, cancellationToken: token);
        Assert.Equal("succeeded", ended[^1].Data.GetProperty("state").GetString());
    }

    /// <summary>The gateway's OpenAPI document.</summary>
    private static async Task<JsonElement> OpenApiAsync(GatewayServer gateway, CancellationToken token) =>
        JsonDocument.Parse(await gateway.Http.GetStringAsync("/openapi/v1.json", token)).RootElement.Clone();

    /// <summary>POST /api/runs asking for the run's events (Accept: text/event-stream).</summary>
    private static HttpRequestMessage StartWithEvents(object body)
    {
        var request = new HttpRequestMessage(HttpMethod.Post, "/api/runs") { Content = JsonContent.Create(body) };
        request.Headers.Accept.ParseAdd("text/event-stream");
        return request;
    }

    [Fact]
    public async Task ServicesList_AddressesForTheAdminScopeOnly()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), new Dictionary<string, string?>
        {
            ["Salsa:Auth:Mode"] = "On",
            ["Salsa:Auth:RateLimit:PermitsPerSecond"] = "0",
        }, token);
        var keys = gateway.App.Services.GetRequiredService<Salsa.Hosting.Security.ApiKeys>();
        await gateway.App.Services.GetRequiredService<Services.ServiceDirectory>().ChannelAsync("census", token); // started: it has addresses

        async Task<JsonElement[]> ListAsync(string scope)
        {
            using var request = new HttpRequestMessage(HttpMethod.Get, "/api/services");
            request.Headers.Add("X-Api-Key", (await keys.CreateAsync("acme", scope, [scope], token)).Key);
            using var response = await gateway.Http.SendAsync(request, token);
            Assert.Equal(HttpStatusCode.OK, response.StatusCode);
            return [.. JsonDocument.Parse(await response.Content.ReadAsStringAsync(token)).RootElement.EnumerateArray()];
        }

        var read = await ListAsync("read");
        var admin = await ListAsync("admin");

        Assert.Equal(7, read.Length);
        Assert.All(read, s => Assert.True(s.GetProperty("grpc").ValueKind == JsonValueKind.Null && s.GetProperty("rest").ValueKind == JsonValueKind.Null, s.GetRawText()));
        var census = admin.Single(s => s.GetProperty("name").GetString() == "census");
        Assert.StartsWith("http://127.0.0.1:", census.GetProperty("grpc").GetString(), StringComparison.Ordinal);
        Assert.True(read.Single(s => s.GetProperty("name").GetString() == "census").GetProperty("started").GetBoolean());
    }

    [Fact]
    public async Task Cancel_StopsTheRunAndTheServiceJob()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var id = await gateway.StartRunAsync(new { workflow = "census-us" }, token);
        await gateway.EventsAsync(id, (e, d) => e == "progress" && d.GetProperty("step").GetString() == "cluster", token);

        using var cancel = await gateway.Http.PostAsync($"/api/runs/{id}/cancel", null, token);
        Assert.Equal(HttpStatusCode.OK, cancel.StatusCode);
        var final = await gateway.Runs.WaitAsync(id, token);

        Assert.Equal(RunState.Cancelled, final.State);
        Assert.Equal(StepState.Cancelled, final.Steps.Single(s => s.Id == "cluster").State);
        // The map never started: it was not cancelled, it did not run, and says why.
        var map = final.Steps.Single(s => s.Id == "map");
        Assert.Equal((StepState.Skipped, "not run: step 'cluster' cancelled"), (map.State, map.Error));
        Assert.Contains(final.Hops, h => h.Step == "cluster" && h.Operation == "Jobs.Cancel" && h.Outcome == "ok");

        // On the annealing service, the job is cancelled too: no work is left running.
        var job = (await ServiceJobsWhenSettledAsync(gateway, "annealing", token)).Single();
        Assert.Equal(Salsa.Contracts.Common.JobState.Cancelled, job.State);
    }

    [Fact]
    public async Task FailingStep_FailsTheRun_SkipsItsDependents_RunsTheOtherBranches_AndIsNotRetriedWhenTheInputIsWrong()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        // Within every bound the gateway checks (they are the service's), but more clusters than the
        // query's points: only the service can tell, and it refuses the input.
        var yaml = TestWorkflows.Small
            .Replace("operation: query\n    inputs: { dataset: import.dataset }", "operation: query\n    inputs: { dataset: import.dataset }\n    parameters: { counties: [\"18097\"] }", StringComparison.Ordinal)
            .Replace("clusters: 5, seed: 7 }", "clusters: 1000 }\n    retry: { attempts: 3, backoff: 100ms }", StringComparison.Ordinal)
            + "\n  again:\n    service: kmeans\n    operation: cluster\n    inputs: { dataset: query.dataset }\n    parameters: { clusters: 3 }\n    after: [cluster]\n"
            // A branch that does not need the failed step runs on, and its next step starts after the
            // failure: only what depends on a failure is skipped. The annealing outlasts the refused
            // start by far — a slow schedule, 1.7 s here, where the refusal took 200 ms with the k-means
            // service starting cold (with the default schedule the two once crossed on a loaded CI machine).
            + "  sibling:\n    service: annealing\n    operation: cluster\n    inputs: { dataset: query.dataset }\n    parameters: { maxClusters: 6, fixedCooling: true, coolingFactor: 0.9995 }\n"
            + "  next:\n    service: kmeans\n    operation: cluster\n    inputs: { dataset: query.dataset }\n    parameters: { clusters: 2 }\n    after: [sibling]\n";

        var id = await gateway.StartRunAsync(new { yaml }, token);
        var final = await gateway.Runs.WaitAsync(id, token);

        Assert.Equal(RunState.Failed, final.State);
        var cluster = final.Steps.Single(s => s.Id == "cluster");
        Assert.Equal(StepState.Failed, cluster.State);
        Assert.Equal(1, cluster.Attempts); // the input is wrong: a retry cannot help
        Assert.Contains("InvalidArgument", cluster.Error, StringComparison.Ordinal);
        Assert.Contains("clusters (K) must be between 1 and the number of points", cluster.Error, StringComparison.Ordinal);
        Assert.Single(final.Hops, h => h.Step == "cluster" && h.Retries == 0);
        Assert.Contains("step 'cluster' (kmeans.cluster) failed", final.Error, StringComparison.Ordinal);
        var again = final.Steps.Single(s => s.Id == "again");
        Assert.Equal((StepState.Skipped, "not run: step 'cluster' failed"), (again.State, again.Error));
        Assert.Equal(StepState.Succeeded, final.Steps.Single(s => s.Id == "sibling").State);
        var next = final.Steps.Single(s => s.Id == "next");
        Assert.Equal(StepState.Succeeded, next.State);
        Assert.True(next.Started > cluster.Finished, $"next started {next.Started:O}, the cluster failed {cluster.Finished:O}");
        Assert.Equal(StepState.Succeeded, final.Steps.Single(s => s.Id == "query").State);
    }

    [Fact]
    public async Task StepTimeout_IsRetriedByItsPolicy_ThenFailsTheRun()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        // A job far longer than an attempt's 300 ms on any machine: the slow geometric schedule takes
        // 12 s here (the default schedule took 750 ms cold, and a warm one once finished
        // inside 300 ms on a CI run).
        var yaml = TestWorkflows.Small.Replace("source: indiana-1000", "source: indiana", StringComparison.Ordinal)
            .Replace("    service: kmeans\n    operation: cluster\n    inputs: { dataset: query.dataset }\n    parameters: { clusters: 5, seed: 7 }",
                "    service: annealing\n    operation: cluster\n    inputs: { dataset: query.dataset }\n    parameters: { maxClusters: 50, fixedCooling: true, coolingFactor: 0.9995 }\n    timeout: 300ms\n    retry: { attempts: 2, backoff: 50ms }", StringComparison.Ordinal);

        var id = await gateway.StartRunAsync(new { yaml }, token);
        var events = new List<Runs.RunEvent>();
        await foreach (var item in gateway.Runs.WatchAsync(id, token))
        {
            events.Add(item);
        }

        var final = await gateway.Runs.WaitAsync(id, token);

        var cluster = final.Steps.Single(s => s.Id == "cluster");
        Assert.Equal(RunState.Failed, final.State);
        Assert.Equal(2, cluster.Attempts);

        // The second attempt starts with no progress: the first attempt's is not shown as its own.
        var second = events.OfType<Runs.RunEvent.StepChanged>().First(e => e.View.Id == "cluster" && e.View.Attempts == 2);
        Assert.Null(second.View.Progress);
        Assert.Contains("timed out", cluster.Error, StringComparison.Ordinal);
        // An attempt's 300 ms may run out before its job is started (a loaded machine): then nothing was
        // started and nothing is left to cancel. Whatever was started was cancelled.
        var started = final.Hops.Count(h => h.Step == "cluster" && h.Operation == "Start");
        Assert.InRange(started, 1, 2);
        Assert.Equal(started, final.Hops.Count(h => h.Step == "cluster" && h.Operation == "Jobs.Cancel"));

        // Every job the service accepted was cancelled there (each stops within an iteration): none is left computing.
        var jobs = await ServiceJobsWhenSettledAsync(gateway, "annealing", token);
        Assert.Equal(started, jobs.Count);
        Assert.All(jobs, j => Assert.Equal(Salsa.Contracts.Common.JobState.Cancelled, j.State));
    }

    /// <summary>A service's jobs once each has ended (a cancelled job stops within one iteration): watched to their end, not polled.</summary>
    private static async Task<List<Salsa.Contracts.Common.JobInfo>> ServiceJobsWhenSettledAsync(GatewayServer gateway, string service, CancellationToken token)
    {
        var channel = await gateway.App.Services.GetRequiredService<Services.ServiceDirectory>().ChannelAsync(service, token);
        var jobs = new JobsClient(channel);
        var listed = await jobs.ListAsync(new Salsa.Contracts.Common.ListJobsRequest { Limit = 100 }, new CallOptions(cancellationToken: token));
        var ended = new List<Salsa.Contracts.Common.JobInfo>();
        foreach (var job in listed.Jobs)
        {
            ended.Add(await jobs.WatchToEndAsync(job.JobId, options: new CallOptions(cancellationToken: token)));
        }

        return ended;
    }

    [Fact]
    public async Task BadRequests_GetClearErrors_AndChangeNothing()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var http = gateway.Http;

        using var invalid = await http.PostAsJsonAsync("/api/runs", new { yaml = TestWorkflows.Small.Replace("service: kmeans", "service: kmeanz", StringComparison.Ordinal) }, token);
        Assert.Equal(HttpStatusCode.BadRequest, invalid.StatusCode);
        Assert.Equal("application/problem+json", invalid.Content.Headers.ContentType?.MediaType);
        var problem = JsonDocument.Parse(await invalid.Content.ReadAsStringAsync(token)).RootElement;
        var error = problem.GetProperty("errors").EnumerateArray().Single();
        Assert.Equal(12, error.GetProperty("line").GetInt32());
        Assert.Contains("unknown service 'kmeanz'", error.GetProperty("message").GetString(), StringComparison.Ordinal);

        using var unknown = await http.PostAsJsonAsync("/api/runs", new { workflow = "census-mars" }, token);
        Assert.Equal(HttpStatusCode.NotFound, unknown.StatusCode);
        Assert.Contains("census-indiana", await unknown.Content.ReadAsStringAsync(token), StringComparison.Ordinal);
        using var empty = await http.PostAsJsonAsync("/api/runs", new { }, token);
        Assert.Equal(HttpStatusCode.BadRequest, empty.StatusCode);
        using var both = await http.PostAsJsonAsync("/api/runs", new { workflow = "census-indiana", yaml = TestWorkflows.Small }, token);
        Assert.Equal(HttpStatusCode.BadRequest, both.StatusCode);
        using var malformed = await http.PostAsync("/api/runs", new StringContent("{\"workflow\": ", System.Text.Encoding.UTF8, "application/json"), token);
        Assert.Equal(HttpStatusCode.BadRequest, malformed.StatusCode);
        using var badOverride = await http.PostAsJsonAsync("/api/runs", new { workflow = "census-indiana", parameters = new Dictionary<string, object> { ["cluster.maxClusters"] = "many" } }, token);
        Assert.Equal(HttpStatusCode.BadRequest, badOverride.StatusCode);

        Assert.Equal(HttpStatusCode.NotFound, (await http.GetAsync($"/api/runs/{Guid.NewGuid()}", token)).StatusCode);
        Assert.Equal(HttpStatusCode.BadRequest, (await http.GetAsync("/api/runs/not-a-guid", token)).StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, (await http.GetAsync($"/api/runs/{Guid.NewGuid()}/events", token)).StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, (await http.PostAsync($"/api/runs/{Guid.NewGuid()}/cancel", null, token)).StatusCode);

        using var valid = await http.PostAsJsonAsync("/api/workflows/validate", new { yaml = TestWorkflows.Small }, token);
        Assert.Equal(HttpStatusCode.OK, valid.StatusCode);
        using var notValid = await http.PostAsJsonAsync("/api/workflows/validate", new { yaml = "name: x\nsteps:\n  a: [" }, token);
        Assert.Equal(HttpStatusCode.BadRequest, notValid.StatusCode);

        // Over gRPC: INVALID_ARGUMENT naming the line, NOT_FOUND for an unknown run.
        var client = new GatewayClient(gateway.Grpc);
        var rpc = await Assert.ThrowsAsync<RpcException>(async () => await client.StartRunAsync(new StartRunRequest { Yaml = TestWorkflows.Small.Replace("clusters: 5", "clusters: -5", StringComparison.Ordinal) }, new CallOptions(cancellationToken: token)));
        Assert.Equal(StatusCode.InvalidArgument, rpc.StatusCode);
        Assert.Contains("inline:15:", rpc.Status.Detail, StringComparison.Ordinal);
        var missing = await Assert.ThrowsAsync<RpcException>(async () => await client.GetRunAsync(new RunRef { RunId = Guid.NewGuid().ToString() }, new CallOptions(cancellationToken: token)));
        Assert.Equal(StatusCode.NotFound, missing.StatusCode);

        // Nothing was accepted.
        Assert.Empty(await gateway.Runs.ListAsync(10, token));
    }

    [Fact]
    public async Task AddressedServices_AreCalledRemotely_OthersStayEmbedded()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        var store = directory.Combine("salsa.db");
        await using var census = await Standalone.StartAsync<CensusService>(store, token);
        await using var kmeans = await Standalone.StartAsync<KMeansService>(store, token);
        await using var gateway = await GatewayServer.StartAsync(store, new Dictionary<string, string?>
        {
            ["Gateway:Services:census"] = census.Ports.GrpcAddress.ToString(),
            ["Gateway:Services:kmeans"] = kmeans.Ports.GrpcAddress.ToString(),
        }, token);

        var id = await gateway.StartRunAsync(new { yaml = TestWorkflows.Small }, token);
        var final = await gateway.Runs.WaitAsync(id, token);

        Assert.True(final.State == RunState.Succeeded, final.Error);
        Assert.Equal(["assignments"], final.Artifacts.Select(a => a.Name));
        var services = JsonDocument.Parse(await gateway.Http.GetStringAsync("/api/services", token)).RootElement.EnumerateArray()
            .ToDictionary(s => s.GetProperty("name").GetString()!, s => s);
        Assert.Equal("remote", services["census"].GetProperty("mode").GetString());
        Assert.Equal(census.Ports.GrpcAddress.ToString(), services["census"].GetProperty("grpc").GetString());
        Assert.Equal("embedded", services["annealing"].GetProperty("mode").GetString());
        Assert.False(services["annealing"].GetProperty("started").GetBoolean()); // not needed by this run: never started

        // The standalone services did the work: their own job list has the k-means job.
        var jobs = await new JobsClient(kmeans.Channel).ListAsync(new Salsa.Contracts.Common.ListJobsRequest { Limit = 5 }, new CallOptions(cancellationToken: token));
        Assert.Single(jobs.Jobs);
    }
}
