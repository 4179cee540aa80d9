using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Net.Http.Json;
using System.Text.Json.Nodes;
using Grpc.Core;
using Grpc.Net.Client;
using Salsa.Bench.Experiments.Services;
using Salsa.Bench.Harness;
using Salsa.Contracts.Clients;
using Salsa.Hosting.Host;
using Salsa.Hosting.Security;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Bench.Experiments.Gateway;

/// <summary>
/// The platform under a steady load while it is hurt: the gateway in server mode and the services a
/// census workflow needs, each its own process, on PostgreSQL, with authentication on (API key, service
/// key). A steady rate of workflow runs (REST) and of API reads (REST and gRPC, open loop) goes on
/// while the annealing service is killed (SIGKILL) and started again, and PostgreSQL is restarted.
/// Counted: runs accepted, completed, failed (with their reasons) and stuck; each call's latency
/// (p50, p99) and status; every process's peak resident memory. Traffic stays on 127.0.0.1 and the
/// run stops by itself.
/// </summary>
public sealed class ReliabilityExperiment : IExperiment
{
    private const string Workflow = """
        name: reliability
        steps:
          import: { service: census, operation: import, parameters: { source: indiana-1000 }, retry: { attempts: 6, backoff: 2s } }
          query: { service: census, operation: query, inputs: { dataset: import.dataset }, parameters: { skipUnpopulated: true }, retry: { attempts: 6, backoff: 2s } }
          cluster: { service: annealing, operation: cluster, inputs: { dataset: query.dataset }, parameters: { maxClusters: 6 }, timeout: 2m, retry: { attempts: 6, backoff: 2s } }
          map: { service: render, operation: census-map, inputs: { points: query.dataset, clustering: cluster.job }, parameters: { width: 400, height: 400 }, timeout: 2m, retry: { attempts: 6, backoff: 2s }, artifacts: [map.svg] }
        """;

    private static readonly string[] Services = ["census", "annealing", "render"];
    private static readonly TimeSpan SettlePoll = TimeSpan.FromSeconds(1);

    public string Name => "reliability";

    public string Description => "Steady runs and API calls on the gateway (server mode, PostgreSQL, auth on) while a service is killed and PostgreSQL restarted: lost, stuck, p50/p99, peak RSS";

    public async Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var load = TimeSpan.FromSeconds(context.Quick ? 45 : 150);
        var runEvery = TimeSpan.FromSeconds(context.Quick ? 3 : 4);
        const double readsPerSecond = 10;

        await using var postgres = await PostgresServer.StartAsync(cancellationToken);
        var serviceKey = Convert.ToBase64String(System.Security.Cryptography.RandomNumberGenerator.GetBytes(32));
        string[] common =
        [
            $"ConnectionStrings:salsa={postgres.ConnectionString}",
            "Salsa:Auth:Mode=On",
            $"Salsa:Auth:ServiceKey={serviceKey}",
            "Salsa:Auth:RateLimit:PermitsPerSecond=200",
            "Salsa:Auth:RateLimit:Burst=400",
            "Cluster:Enabled=false",
        ];

        var processes = new ConcurrentDictionary<string, ServiceProcess>();
        var ports = new Dictionary<string, ServicePorts>();
        foreach (var service in Services)
        {
            ports[service] = new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
            processes[service] = await ServiceProcess.StartAsync(service, ports[service], common, cancellationToken);
        }

        ports["gateway"] = new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort());
        processes["gateway"] = await ServiceProcess.StartAsync("gateway", ports["gateway"],
            [.. common, "Gateway:WarmStart=false", .. Services.Select(s => $"Gateway:Services:{s}={ports[s].GrpcAddress}")], cancellationToken);

        string key;
        await using (var store = DataStoreFactory.Create(new StoreOptions { ConnectionString = postgres.ConnectionString }))
        {
            await store.InitializeAsync(cancellationToken);
            using var keys = new ApiKeys(store, Microsoft.Extensions.Options.Options.Create(new AuthSettings()), TimeProvider.System);
            key = (await keys.CreateAsync("bench", "reliability benchmark", [Scopes.Run], cancellationToken)).Key;
        }

        using var rest = new HttpClient { BaseAddress = ports["gateway"].RestAddress, Timeout = TimeSpan.FromSeconds(60) };
        rest.DefaultRequestHeaders.Add(CredentialHeaders.Key, key);
        using var channel = GrpcChannel.ForAddress(ports["gateway"].GrpcAddress);
        var grpc = new GatewayClient(channel);
        var headers = new Metadata { { CredentialHeaders.Key, key } };

        var peakRss = new ConcurrentDictionary<string, long>();
        var calls = new ConcurrentBag<Call>();
        var runs = new ConcurrentDictionary<string, TrackedRun>();
        var refusedRuns = new ConcurrentBag<string>();
        var events = new List<(double At, string What)>();
        var clock = Stopwatch.StartNew();
        using var stopLoad = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        stopLoad.CancelAfter(load);

        var sampler = SampleMemoryAsync(processes, peakRss, stopLoad.Token);
        var submitter = OpenLoopAsync(1 / runEvery.TotalSeconds, stop: stopLoad.Token, send: async () =>
        {
            var started = Stopwatch.GetTimestamp();
            try
            {
                using var response = await rest.PostAsJsonAsync("/api/runs", new { yaml = Workflow }, cancellationToken);
                calls.Add(new Call("POST /api/runs", (int)response.StatusCode, Stopwatch.GetElapsedTime(started).TotalMilliseconds));
                if (response.IsSuccessStatusCode)
                {
                    var run = (await response.Content.ReadFromJsonAsync<JsonObject>(cancellationToken))!;
                    var id = run["id"]!.GetValue<string>();
                    runs[id] = new TrackedRun(id, clock.Elapsed.TotalSeconds);
                }
                else
                {
                    refusedRuns.Add($"{(int)response.StatusCode} {await response.Content.ReadAsStringAsync(cancellationToken)}");
                }
            }
            catch (HttpRequestException e)
            {
                calls.Add(new Call("POST /api/runs", 0, Stopwatch.GetElapsedTime(started).TotalMilliseconds));
                refusedRuns.Add($"no answer: {e.Message}");
            }
        });
        var restReads = OpenLoopAsync(readsPerSecond, stop: stopLoad.Token, send: async () =>
        {
            var started = Stopwatch.GetTimestamp();
            try
            {
                using var response = await rest.GetAsync("/api/runs?limit=20", cancellationToken);
                await response.Content.ReadAsByteArrayAsync(cancellationToken);
                calls.Add(new Call("GET /api/runs", (int)response.StatusCode, Stopwatch.GetElapsedTime(started).TotalMilliseconds));
            }
            catch (HttpRequestException)
            {
                calls.Add(new Call("GET /api/runs", 0, Stopwatch.GetElapsedTime(started).TotalMilliseconds));
            }
        });
        var grpcReads = OpenLoopAsync(readsPerSecond, stop: stopLoad.Token, send: async () =>
        {
            var started = Stopwatch.GetTimestamp();
            try
            {
                await grpc.ListRunsAsync(new Salsa.Contracts.Gateway.ListRunsRequest { Limit = 20 }, new CallOptions(headers, cancellationToken: cancellationToken));
                calls.Add(new Call("gRPC ListRuns", 200, Stopwatch.GetElapsedTime(started).TotalMilliseconds));
            }
            catch (RpcException e)
            {
                calls.Add(new Call("gRPC ListRuns", -(int)e.StatusCode, Stopwatch.GetElapsedTime(started).TotalMilliseconds));
            }
        });

        // The faults, at fixed points of the load.
        await Task.Delay(load * 0.3, cancellationToken);
        processes["annealing"].Kill();
        events.Add((clock.Elapsed.TotalSeconds, "annealing service killed (SIGKILL)"));
        await processes["annealing"].DisposeAsync();
        await Task.Delay(TimeSpan.FromSeconds(2), cancellationToken);
        processes["annealing"] = await ServiceProcess.StartAsync("annealing", ports["annealing"], common, cancellationToken);
        events.Add((clock.Elapsed.TotalSeconds, "annealing service answering again (same ports)"));

        await Task.Delay(load * 0.3, cancellationToken);
        events.Add((clock.Elapsed.TotalSeconds, "PostgreSQL stopping (fast shutdown)"));
        await postgres.StopAsync(cancellationToken);
        await Task.Delay(TimeSpan.FromSeconds(3), cancellationToken);
        await postgres.StartAgainAsync(cancellationToken);
        events.Add((clock.Elapsed.TotalSeconds, "PostgreSQL accepting connections again"));

        await Task.WhenAll(submitter, restReads, grpcReads);
        events.Add((clock.Elapsed.TotalSeconds, "load stopped; waiting for the runs in flight"));

        // Every accepted run must end: completed or failed with a reason, never lost, never stuck.
        var settleBy = clock.Elapsed + TimeSpan.FromMinutes(context.Quick ? 2 : 4);
        while (clock.Elapsed < settleBy)
        {
            foreach (var run in runs.Values.Where(r => r.State is null))
            {
                try
                {
                    var view = (await rest.GetFromJsonAsync<JsonObject>($"/api/runs/{run.Id}", cancellationToken))!;
                    var state = view["state"]!.GetValue<string>();
                    if (state is not ("queued" or "running"))
                    {
                        run.State = state;
                        run.Error = view["error"]?.GetValue<string>();
                        run.Seconds = (DateTimeOffset.Parse(view["finished"]!.GetValue<string>(), CultureInfo.InvariantCulture) - DateTimeOffset.Parse(view["created"]!.GetValue<string>(), CultureInfo.InvariantCulture)).TotalSeconds;
                        run.Resumes = view["resumes"]?.GetValue<int>() ?? 0;
                    }
                }
                catch (HttpRequestException e)
                {
                    run.Error = $"not found: {e.StatusCode}";
                }
            }

            if (runs.Values.All(r => r.State is not null))
            {
                break;
            }

            await Task.Delay(SettlePoll, cancellationToken); // the runs' states are polled, as a client would
        }

        events.Add((clock.Elapsed.TotalSeconds, "settled"));
        foreach (var (name, process) in processes)
        {
            RecordRss(process, name, peakRss);
            await process.DisposeAsync();
        }

        await sampler.ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
        Report(context, load, runEvery, readsPerSecond, runs.Values.ToList(), refusedRuns.ToList(), calls.ToList(), peakRss, events);
    }

    private static void Report(ExperimentContext context, TimeSpan load, TimeSpan runEvery, double readsPerSecond, List<TrackedRun> runs, List<string> refused,
        List<Call> calls, ConcurrentDictionary<string, long> peakRss, List<(double At, string What)> events)
    {
        var completed = runs.Count(r => r.State == "succeeded");
        var failed = runs.Where(r => r.State is not null and not "succeeded").ToList();
        var stuck = runs.Count(r => r.State is null);
        context.Add("runs", "accepted", runs.Count, "runs");
        context.Add("runs", "completed", completed, "runs");
        context.Add("runs", "failed", failed.Count, "runs");
        context.Add("runs", "stuck", stuck, "runs");
        context.Add("runs", "refused", refused.Count, "runs");
        var durations = runs.Where(r => r.Seconds is not null).Select(r => r.Seconds!.Value).ToList();
        context.Add("runs", "p50", Statistics.Percentile(durations, 50), "s");
        context.Add("runs", "p99", Statistics.Percentile(durations, 99), "s");

        context.Section("What was measured", string.Create(CultureInfo.InvariantCulture,
            $"{load.TotalSeconds:0} s of load on the gateway in server mode: a run of a census workflow (indiana-1000: import, query, annealing Kmax 6, map; every step retried up to 6 times, 2 s apart) submitted every {runEvery.TotalSeconds:0} s over REST, and {readsPerSecond:0} run listings a second over REST and {readsPerSecond:0} over gRPC, open loop (sent on schedule whatever the answers). The gateway and the census, annealing and render services are each their own process (this benchmark's executable, `--serve`), on one PostgreSQL, with authentication on: the load's API key, the service key between the gateway and the services. Release build. Traffic on 127.0.0.1 only."));
        context.Table(["at (s)", "event"], events.Select(e => (IReadOnlyList<string>)[e.At.ToString("0.0", CultureInfo.InvariantCulture), e.What]));

        context.Section("Runs");
        context.Table(["accepted", "completed", "failed", "stuck", "refused", "p50 (s)", "p99 (s)", "resumed"],
        [[
            runs.Count.ToString(CultureInfo.InvariantCulture), completed.ToString(CultureInfo.InvariantCulture), failed.Count.ToString(CultureInfo.InvariantCulture),
            stuck.ToString(CultureInfo.InvariantCulture), refused.Count.ToString(CultureInfo.InvariantCulture),
            Statistics.Percentile(durations, 50).ToString("0.0", CultureInfo.InvariantCulture), Statistics.Percentile(durations, 99).ToString("0.0", CultureInfo.InvariantCulture),
            runs.Count(r => r.Resumes > 0).ToString(CultureInfo.InvariantCulture),
        ]]);
        var slowest = runs.Where(r => r.Seconds is not null).OrderByDescending(r => r.Seconds).Take(5).ToList();
        context.Paragraph("The slowest runs, by when they were submitted (the faults' times are above): " + string.Join("; ", slowest.Select(r =>
            string.Create(CultureInfo.InvariantCulture, $"submitted at {r.SubmittedAt:0.0} s, took {r.Seconds:0.0} s{(r.Resumes > 0 ? ", resumed" : "")}"))) + ".");
        if (failed.Count > 0 || refused.Count > 0)
        {
            context.Table(["outcome", "runs", "reason"], failed.GroupBy(r => Shorten(r.Error)).Select(g => (IReadOnlyList<string>)[g.First().State!, g.Count().ToString(CultureInfo.InvariantCulture), g.Key])
                .Concat(refused.GroupBy(Shorten).Select(g => (IReadOnlyList<string>)["refused", g.Count().ToString(CultureInfo.InvariantCulture), g.Key])));
        }

        context.Section("API calls");
        var rows = new List<IReadOnlyList<string>>();
        foreach (var kind in calls.GroupBy(c => c.Kind).OrderBy(g => g.Key, StringComparer.Ordinal))
        {
            var latencies = kind.Select(c => c.Milliseconds).ToList();
            var ok = kind.Count(c => c.Status is >= 200 and < 300);
            context.Add(kind.Key, "calls", kind.Count(), "calls");
            context.Add(kind.Key, "ok", ok, "calls");
            context.Add(kind.Key, "p50", Statistics.Percentile(latencies, 50), "ms");
            context.Add(kind.Key, "p99", Statistics.Percentile(latencies, 99), "ms");
            var others = string.Join(", ", kind.Where(c => c.Status is < 200 or >= 300).GroupBy(c => c.Status).OrderBy(g => g.Key)
                .Select(g => $"{StatusName(g.Key)} × {g.Count()}"));
            rows.Add([kind.Key, kind.Count().ToString(CultureInfo.InvariantCulture), ok.ToString(CultureInfo.InvariantCulture), others.Length == 0 ? "–" : others,
                Statistics.Percentile(latencies, 50).ToString("0.0", CultureInfo.InvariantCulture), Statistics.Percentile(latencies, 99).ToString("0.0", CultureInfo.InvariantCulture)]);
        }

        context.Table(["call", "sent", "ok", "other answers", "p50 (ms)", "p99 (ms)"], rows);

        context.Section("Peak resident memory");
        foreach (var (name, bytes) in peakRss.OrderBy(p => p.Key, StringComparer.Ordinal))
        {
            context.Add(name, "peak RSS", bytes / 1048576.0, "MiB");
        }

        context.Table(["process", "peak RSS (MiB)"], peakRss.OrderBy(p => p.Key, StringComparer.Ordinal).Select(p => (IReadOnlyList<string>)[p.Key, (p.Value / 1048576.0).ToString("0", CultureInfo.InvariantCulture)]));
        context.Paragraph("Peak RSS is the largest VmRSS sampled each second (and VmHWM at the end) of each process; the annealing service's is its second process's (the first was killed).");
    }

    private static string StatusName(int status) => status switch
    {
        0 => "no answer",
        < 0 => ((StatusCode)(-status)).ToString(),
        _ => status.ToString(CultureInfo.InvariantCulture),
    };

    private static string Shorten(string? text) => text is null ? "" : text.Length <= 160 ? text : text[..160] + "…";

    /// <summary>Calls <paramref name="send"/> <paramref name="perSecond"/> times a second on schedule, whether or not earlier calls have answered.</summary>
    private static async Task OpenLoopAsync(double perSecond, Func<Task> send, CancellationToken stop)
    {
        var inFlight = new List<Task>();
        using var timer = new PeriodicTimer(TimeSpan.FromSeconds(1 / perSecond));
        try
        {
            while (await timer.WaitForNextTickAsync(stop))
            {
                inFlight.Add(Task.Run(send, CancellationToken.None));
            }
        }
        catch (OperationCanceledException)
        {
            // the load's time is up
        }

        await Task.WhenAll(inFlight).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
    }

    private static async Task SampleMemoryAsync(ConcurrentDictionary<string, ServiceProcess> processes, ConcurrentDictionary<string, long> peak, CancellationToken stop)
    {
        using var timer = new PeriodicTimer(TimeSpan.FromSeconds(1));
        try
        {
            while (await timer.WaitForNextTickAsync(stop))
            {
                foreach (var (name, process) in processes)
                {
                    RecordRss(process, name, peak);
                }
            }
        }
        catch (OperationCanceledException)
        {
            // the load's time is up
        }
    }

    private static void RecordRss(ServiceProcess process, string name, ConcurrentDictionary<string, long> peak)
    {
        try
        {
            // 0 once the process is gone or going: nothing to record.
            var bytes = Math.Max(ProcessMemory.PeakResidentBytes(process.Id), ProcessMemory.ResidentBytes(process.Id));
            if (bytes > 0)
            {
                peak.AddOrUpdate(name, bytes, (_, old) => Math.Max(old, bytes));
            }
        }
        catch (InvalidOperationException)
        {
            // the process is gone (its id no longer readable)
        }
    }

    private sealed record Call(string Kind, int Status, double Milliseconds);

    private sealed class TrackedRun(string id, double submittedAt)
    {
        public string Id { get; } = id;

        public double SubmittedAt { get; } = submittedAt;

        public string? State { get; set; }

        public string? Error { get; set; }

        public double? Seconds { get; set; }

        public int Resumes { get; set; }
    }
}
