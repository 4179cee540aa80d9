using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Grpc.Core;
using Microsoft.Extensions.DependencyInjection;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Gateway;
using Salsa.DataFiles;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The three shipped workflows end to end on the embedded default: a real gateway server, every
/// service in-process on its own loopback ports, real gRPC hops, a real SQLite store.
/// </summary>
public sealed class WorkflowRunTests
{
    [Fact]
    public async Task CensusIndiana_OverRestAndSse_ClustersMapsAndTracesEveryHopInOneTrace()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        using var spans = new ActivityRecorder(RunEngine.ActivitySourceName, "Microsoft.AspNetCore", Salsa.Hosting.SalsaHosting.ActivitySourceName, "Salsa.Grid");
        // As the embedded default runs it: the annealing on the gateway's own silo.
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), new Dictionary<string, string?> { ["Cluster:Enabled"] = "true" }, token);

        // The classic cooling schedule, cooled slowly (about 3 s here, a dozen reports): progress is
        // reported as the gateway's watch of the cluster job sees it (every 200 ms), and the default
        // schedule — or the classic one at its default factor, once on CI — is done within two reports
        // on a fast machine.
        var id = await gateway.StartRunAsync(new
        {
            workflow = "census-indiana",
            parameters = new Dictionary<string, object> { ["cluster.fixedCooling"] = true, ["cluster.coolingFactor"] = 0.998 },
        }, token);
        var events = await gateway.EventsAsync(id, cancellationToken: token);

        // The stream: the run first, live progress of the annealing, hops as they happen, the run last.
        Assert.Equal("run", events[0].Event);
        var final = events[^1];
        Assert.Equal("run", final.Event);
        Assert.Equal("succeeded", final.Data.GetProperty("state").GetString());
        var progress = events.Where(e => e.Event == "progress" && e.Data.GetProperty("step").GetString() == "cluster").Select(e => e.Data.GetProperty("progress")).ToList();
        var run = await gateway.GetRunAsync(id, token);
        Assert.True(progress.Count >= 3, $"{progress.Count} progress events in a {Step(run, "cluster").GetProperty("durationMs")} ms step");
        Assert.Contains(progress, p => p.GetProperty("temperature").ValueKind == JsonValueKind.Number && p.GetProperty("clusters").GetInt32() > 1);
        Assert.Equal(final.Data.GetProperty("hops").GetArrayLength(), events.Count(e => e.Event == "hop"));

        Assert.All(run.GetProperty("steps").EnumerateArray(), s => Assert.Equal("succeeded", s.GetProperty("state").GetString()));

        // The clusters: 20, holding every populated block group and all their population.
        var populated = CensusBlockGroups.ReadFile(CensusBlockGroups.IndianaPath).Where(b => b.Population > 0).ToList();
        var table = Step(run, "cluster").GetProperty("outputs").GetProperty("table").EnumerateArray().ToList();
        Assert.Equal(20, table.Count);
        Assert.Equal(populated.Count, table.Sum(r => r.GetProperty("size").GetInt32()));
        Assert.Equal(populated.Sum(b => (double)b.Population), table.Sum(r => r.GetProperty("weight").GetDouble()), 1.0);

        // The files: an SVG and a PNG map, GeoJSON of the clusters with their population.
        Assert.Equal(["map.svg", "map.png", "clusters.geojson"], run.GetProperty("artifacts").EnumerateArray().Select(a => a.GetProperty("name").GetString()));
        var svg = await gateway.Http.GetStringAsync($"/api/runs/{id}/artifacts/map.svg", token);
        Assert.Contains("<svg", svg, StringComparison.Ordinal);
        var png = await gateway.Http.GetByteArrayAsync($"/api/runs/{id}/artifacts/map.png", token);
        Assert.Equal([0x89, (byte)'P', (byte)'N', (byte)'G'], png[..4]);
        using var geojson = JsonDocument.Parse(await gateway.Http.GetStringAsync($"/api/runs/{id}/artifacts/clusters.geojson", token));
        Assert.Equal("FeatureCollection", geojson.RootElement.GetProperty("type").GetString());
        Assert.True(geojson.RootElement.GetProperty("features").GetArrayLength() >= 20);

        // Each file moved once: it stays with the render job that stored it (the run names that job),
        // the run's download is that job's copy byte for byte, and the gateway stored none of its own.
        var mapJob = Step(run, "map").GetProperty("jobs")[0].GetProperty("jobId").GetString()!;
        Assert.All(run.GetProperty("artifacts").EnumerateArray(), a =>
        {
            Assert.Equal(mapJob, a.GetProperty("job").GetProperty("jobId").GetString());
            Assert.Equal("render", a.GetProperty("job").GetProperty("service").GetString());
        });
        var store = gateway.App.Services.GetRequiredService<IDataStore>();
        Assert.Equal(png, (await store.GetArtifactAsync(Guid.Parse(mapJob), "map.png", token))!.Data);
        Assert.Empty(await store.ListArtifactsAsync(id, token));

        // Every hop: which step and call, the client's latency, the service's own time where it reports it.
        var hops = run.GetProperty("hops").EnumerateArray().ToList();
        Assert.Equal(
            ["import:Import", "import:Datasets.Get", "query:Query", "query:Datasets.Get", "cluster:Start", "cluster:Jobs.Watch", "cluster:GetResult",
             "cluster:Jobs.Get", "map:StartCensusMap", "map:Jobs.Watch", "map:Jobs.Get"],
            hops.Select(h => $"{h.GetProperty("step").GetString()}:{h.GetProperty("operation").GetString()}"));
        foreach (var hop in hops.Where(h => h.GetProperty("operation").GetString() is "Import" or "Query" or "Start" or "GetResult" or "StartCensusMap"))
        {
            var latency = hop.GetProperty("latencyMs").GetDouble();
            var server = hop.GetProperty("serverMs").GetDouble();
            Assert.True(server > 0 && server <= latency, string.Create(CultureInfo.InvariantCulture, $"{hop}: server {server} of {latency} ms"));
            Assert.Equal(latency - server, hop.GetProperty("networkMs").GetDouble(), 1e-6);
            Assert.True(hop.GetProperty("requestBytes").GetInt64() > 0 && hop.GetProperty("responseBytes").GetInt64() > 0);
        }

        var watch = hops.First(h => h.GetProperty("operation").GetString() == "Jobs.Watch");
        Assert.True(watch.GetProperty("computeMs").GetDouble() > 0);

        // What each job used: the annealing's passes ran on the silo's threads, outside the job's own
        // flow, and count in its CPU time, given alone as its grid CPU time; the map is not on the grid.
        foreach (var watched in hops.Where(h => h.GetProperty("operation").GetString() == "Jobs.Watch"))
        {
            var used = watched.GetProperty("resources");
            TestContext.Current.TestOutputHelper?.WriteLine($"{watched.GetProperty("step")}: {used} in {watched.GetProperty("computeMs")} ms");
            Assert.True(used.GetProperty("cpuMs").GetDouble() > 0);
            Assert.True(used.GetProperty("allocatedBytes").GetInt64() > 0);
            Assert.True(used.GetProperty("peakMemoryBytes").GetInt64() > 16L << 20);
        }

        var annealingUsed = watch.GetProperty("resources");
        var gridCpu = annealingUsed.GetProperty("gridCpuMs").GetDouble();
        Assert.True(gridCpu > 0 && gridCpu <= annealingUsed.GetProperty("cpuMs").GetDouble(), $"{annealingUsed}");
        var mapWatch = hops.Last(h => h.GetProperty("operation").GetString() == "Jobs.Watch");
        Assert.Equal(JsonValueKind.Null, mapWatch.GetProperty("resources").GetProperty("gridCpuMs").ValueKind);

        // Each step's log: the gateway's lines (its start, each call with its latency, its end), then
        // its job's life in order, from the annealing service; a step that started no job has its
        // calls; an unknown step is a 404 naming the run's steps.
        var clusterJob = Step(run, "cluster").GetProperty("jobs")[0];
        Assert.Equal("annealing", clusterJob.GetProperty("service").GetString());
        var log = await gateway.Http.GetStringAsync($"/api/runs/{id}/steps/cluster/log", token);
        var all = log.TrimEnd('\n').Split('\n');
        Assert.Equal("# gateway (step cluster: annealing.cluster)", all[0]);
        Assert.EndsWith(" info  gateway: started", all[1], StringComparison.Ordinal);
        Assert.Contains(all, l => l.Contains(" gateway: called annealing Start: ", StringComparison.Ordinal));
        Assert.Contains(all, l => l.Contains(" info  gateway: succeeded after ", StringComparison.Ordinal));
        var heading = Array.IndexOf(all, $"# annealing job {clusterJob.GetProperty("jobId").GetString()} (step cluster)");
        Assert.True(heading > 0, log);
        var lines = all[heading..];
        Assert.EndsWith(" info  job: accepted: annealing", lines[1], StringComparison.Ordinal);
        Assert.Contains(" info  job: started after ", lines[2], StringComparison.Ordinal);
        Assert.Contains(lines, l => l.Contains(" job: phase ", StringComparison.Ordinal));
        Assert.Contains(" info  job: succeeded after ", lines[^1], StringComparison.Ordinal);
        Assert.Contains("# render job ", await gateway.Http.GetStringAsync($"/api/runs/{id}/steps/map/log", token), StringComparison.Ordinal);
        if (Step(run, "import").GetProperty("jobs").GetArrayLength() == 0)
        {
            var import = await gateway.Http.GetStringAsync($"/api/runs/{id}/steps/import/log", token);
            Assert.Contains(" gateway: called census Import: ", import, StringComparison.Ordinal);
            Assert.EndsWith("# it started no service job: the calls above are its work.\n", import, StringComparison.Ordinal);
        }

        using (var unknownStep = await gateway.Http.GetAsync($"/api/runs/{id}/steps/nope/log", token))
        {
            Assert.Equal(System.Net.HttpStatusCode.NotFound, unknownStep.StatusCode);
            Assert.Contains("'cluster'", await unknownStep.Content.ReadAsStringAsync(token), StringComparison.Ordinal);
        }

        // One trace: the run's root span, and the services' server spans under the same trace id.
        var traceId = run.GetProperty("traceId").GetString();
        Assert.Matches("^[0-9a-f]{32}$", traceId);
        var root = await spans.WaitForAsync(a => a.OperationName == "run census-indiana" && a.TraceId.ToString() == traceId, token);
        Assert.Null(root.Parent);
        Assert.Equal(default, root.ParentSpanId);
        foreach (var service in new[] { "census", "annealing", "render" })
        {
            var server = await spans.WaitForAsync(a => a.Kind == ActivityKind.Server && a.TraceId.ToString() == traceId
                && a.DisplayName.StartsWith($"salsa.{service}.v1.", StringComparison.Ordinal), token);
            Assert.Equal(traceId, server.TraceId.ToString());
        }

        // The annealing job's span, a child of the call that submitted it, and under its compute the
        // job's run on the cluster's coordinator grain (the gateway's silo here; another process in compose).
        using var enough = CancellationTokenSource.CreateLinkedTokenSource(token);
        enough.CancelAfter(TimeSpan.FromMinutes(1)); // the spans end with the run: a missing one is a failure, not a wait
        try
        {
            var start = await spans.WaitForAsync(a => a.Kind == ActivityKind.Server && a.TraceId.ToString() == traceId && a.DisplayName == "salsa.annealing.v1.Annealing/Start", enough.Token);
            var job = await spans.WaitForAsync(a => a.OperationName == "annealing job" && a.Source.Name == Salsa.Hosting.SalsaHosting.ActivitySourceName && a.TraceId.ToString() == traceId, enough.Token);
            Assert.Equal(start.SpanId, job.ParentSpanId);
            Assert.True(job.GetTagItem("salsa.job.compute_ms") is double compute && compute > 0);
            // Under the job: its queue wait, and its compute — one event per temperature — under which the coordinator ran it.
            await spans.WaitForAsync(a => a.OperationName == "queue" && a.ParentSpanId == job.SpanId, enough.Token);
            var computeSpan = await spans.WaitForAsync(a => a.OperationName == "compute" && a.ParentSpanId == job.SpanId, enough.Token);
            Assert.Contains(computeSpan.Events, e => e.Tags.Any(t => t.Key == "salsa.progress.temperature"));
            var coordinator = await spans.WaitForAsync(a => a.OperationName == "annealing job" && a.Source.Name == "Salsa.Grid" && a.TraceId.ToString() == traceId, enough.Token);
            Assert.Equal(computeSpan.SpanId, coordinator.ParentSpanId);
        }
        catch (OperationCanceledException) when (enough.IsCancellationRequested && !token.IsCancellationRequested)
        {
            Assert.Fail($"A span is missing from trace {traceId}; recorded:{Environment.NewLine}{spans.Describe(a => a.TraceId.ToString() == traceId || a.Source.Name != "Microsoft.AspNetCore")}");
        }
    }

    [Fact]
    public async Task CensusUs_OverGrpc_ClustersTheNationalSet()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var client = new GatewayClient(gateway.Grpc);

        // The national workflow as shipped but for Kmax (100 takes ~16 minutes here; the test uses 4).
        var started = await client.StartRunAsync(new StartRunRequest { Workflow = "census-us", Parameters = { ["cluster.maxClusters"] = "4" } }, new CallOptions(cancellationToken: token));
        Assert.Equal("census-us", started.Workflow);
        Run? final = null;
        var kinds = new HashSet<RunEvent.EventOneofCase>();
        using (var watch = client.WatchRun(new RunRef { RunId = started.RunId }, new CallOptions(cancellationToken: token)))
        {
            while (await watch.ResponseStream.MoveNext(token))
            {
                kinds.Add(watch.ResponseStream.Current.EventCase);
                if (watch.ResponseStream.Current.Run is { State: not ("queued" or "running") } run)
                {
                    final = run;
                }
            }
        }

        Assert.NotNull(final);
        Assert.True(final.State == "succeeded", final.Error);
        Assert.Superset(new HashSet<RunEvent.EventOneofCase> { RunEvent.EventOneofCase.Run, RunEvent.EventOneofCase.Step, RunEvent.EventOneofCase.Progress, RunEvent.EventOneofCase.Hop }, kinds);
        var fetched = await client.GetRunAsync(new RunRef { RunId = started.RunId }, new CallOptions(cancellationToken: token));
        var query = JsonDocument.Parse(fetched.Steps.Single(s => s.Id == "query").OutputsJson).RootElement;
        Assert.Equal(242_335, query.GetProperty("count").GetInt32()); // the national set, every block group
        var cluster = JsonDocument.Parse(fetched.Steps.Single(s => s.Id == "cluster").OutputsJson).RootElement;
        Assert.Equal(4, cluster.GetProperty("clusters").GetInt32());
        Assert.Equal(query.GetProperty("count").GetInt32(), cluster.GetProperty("table").EnumerateArray().Sum(r => r.GetProperty("size").GetInt32()));
        Assert.Equal(fetched.Hops.Count, fetched.Hops.Count(h => h.Outcome is "ok" or "succeeded"));
        var log = await client.GetStepLogAsync(new StepLogRequest { RunId = started.RunId, Step = "cluster" }, new CallOptions(cancellationToken: token));
        Assert.StartsWith("# gateway (step cluster: annealing.cluster)\n", log.Text, StringComparison.Ordinal);
        Assert.Contains("\n# annealing job ", log.Text, StringComparison.Ordinal);
        Assert.Contains(" info  job: succeeded after ", log.Text, StringComparison.Ordinal);

        // The map's PNG over gRPC, in chunks.
        var bytes = new List<byte>();
        using (var download = client.DownloadArtifact(new DownloadRunArtifactRequest { RunId = started.RunId, Name = "map.png" }, new CallOptions(cancellationToken: token)))
        {
            while (await download.ResponseStream.MoveNext(token))
            {
                bytes.AddRange(download.ResponseStream.Current.Data);
            }
        }

        Assert.Equal(fetched.Artifacts.Single(a => a.Name == "map.png").Size, bytes.Count);
        Assert.Equal(0x89, bytes[0]);
    }

    [Fact]
    public async Task Chem40k_RunsBothClusteringsConcurrently_EmbedsMedoids_PlotsAndSearches()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);

        var id = await gateway.StartRunAsync(new
        {
            workflow = "chem-40k",
            parameters = new Dictionary<string, object> { ["annealing.maxClusters"] = 4, ["butina.medoids"] = 300 },
        }, token);
        var final = await gateway.Runs.WaitAsync(id, token);
        Assert.True(final.State == Runs.RunState.Succeeded, final.Error);

        // Binary DA and Butina both depend only on the fingerprints: they were in flight together.
        var annealing = final.Steps.Single(s => s.Id == "annealing");
        var butina = final.Steps.Single(s => s.Id == "butina");
        Assert.True(annealing.Started < butina.Finished && butina.Started < annealing.Finished,
            $"annealing {annealing.Started:O}–{annealing.Finished:O}, butina {butina.Started:O}–{butina.Finished:O}");

        var medoids = butina.Outputs!["medoids"]!.AsArray();
        Assert.Equal(300, medoids.Count);
        Assert.Equal(300, final.Steps.Single(s => s.Id == "embed").Outputs!["items"]!.GetValue<int>());
        Assert.Equal(["scatter.svg", "scatter.png"], final.Artifacts.Select(a => a.Name));
        Assert.All(final.Artifacts, a => Assert.True(a.Size > 1000, $"{a.Name}: {a.Size} bytes"));

        // The search: 10 hits, most similar first, fewer distances than a scan of all 40,000.
        var search = final.Steps.Single(s => s.Id == "search").Outputs!;
        var hits = search["table"]!.AsArray().Select(h => h!["similarity"]!.GetValue<double>()).ToList();
        Assert.Equal(10, hits.Count);
        Assert.Equal(hits.OrderByDescending(x => x), hits);
        Assert.True(hits[0] is > 0.3 and <= 1, $"best similarity {hits[0]}");
        Assert.True(search["distancesComputed"]!.GetValue<long>() < 40_000);

        // The scatter step joined the two branches in the render service (the gateway fetched no
        // assignments): the embedding's items, coloured by the annealing's four clusters.
        Assert.DoesNotContain(final.Hops, h => h.Step == "scatter" && h.Service != "render");
        var svg = System.Text.Encoding.UTF8.GetString((await gateway.Runs.GetArtifactAsync(id, "scatter.svg", token)).Data);
        Assert.All(Enumerable.Range(0, 4), k => Assert.Contains($">cluster {k}<", svg.Replace("\n", "", StringComparison.Ordinal).Replace("\t", "", StringComparison.Ordinal), StringComparison.Ordinal));
    }

    private static JsonElement Step(JsonElement run, string id) =>
        run.GetProperty("steps").EnumerateArray().Single(s => s.GetProperty("id").GetString() == id);
}
