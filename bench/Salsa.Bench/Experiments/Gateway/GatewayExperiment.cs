using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Grpc.Core;
using Grpc.Net.Client;
using Salsa.Bench.Experiments.Services;
using Salsa.Bench.Harness;
using Salsa.Contracts.Census;
using Salsa.Contracts.Clients;
using Salsa.Gateway.Runs;
using Salsa.Rendering.Charts;
using ScottPlot;

namespace Salsa.Bench.Experiments.Gateway;

/// <summary>
/// What the workflow gateway adds to the service calls it makes: the same cheap gRPC call
/// (census Import of a file already imported) made directly by a client and as a step of a run,
/// one at a time, side by side in the same run; the gateway's overhead per hop; runs over REST and
/// server-sent events; sustained runs per second with several runs in flight; and the cost of the
/// run store the gateway writes at every step change.
/// </summary>
public sealed class GatewayExperiment : IExperiment
{
    private const string Source = "indiana-1000";

    /// <summary>The key of a bare HTTP request to the gateway: what a REST path pays before any run.</summary>
    private const string HttpFloor = "path=http-floor,op=GET /api/console";

    /// <summary>Run slots of the measured gateway: above the largest submitter count, so the slots do not bound it.</summary>
    private const int Concurrent = 16;

    private const int QueueDepth = 64;

    /// <summary>The gateway's default slots (<c>Gateway:Runs:Concurrent</c>), measured at the largest submitter count.</summary>
    private const int DefaultConcurrent = 4;

    private static readonly JsonSerializerOptions s_json = new(JsonSerializerDefaults.Web);

    private static readonly string s_oneStep = $$"""
        name: bench-hop
        steps:
          import: { service: census, operation: import, parameters: { source: {{Source}} } }
        """;

    private static readonly string s_threeSteps = $$"""
        name: bench-chain
        steps:
          a: { service: census, operation: import, parameters: { source: {{Source}} } }
          b: { service: census, operation: import, parameters: { source: {{Source}} }, after: [a] }
          c: { service: census, operation: import, parameters: { source: {{Source}} }, after: [b] }
        """;

    private static readonly string s_importQuery = $$"""
        name: bench-import-query
        steps:
          import: { service: census, operation: import, parameters: { source: {{Source}} } }
          query: { service: census, operation: query, inputs: { dataset: import.dataset } }
        """;

    /// <summary>Where a run's wall time goes, from the timestamps the run itself records (see <see cref="Segments"/>).</summary>
    private static readonly string[] s_segments =
    [
        "submit → created: read the YAML (or find it remembered) and check it",
        "created → started: queue and run slot (the store insert goes on beside them)",
        "→ each step started: the DAG loop",
        "step started → call: span, channel (its store write goes on in the background)",
        "the call (the hop's latency)",
        "call → step succeeded: outputs, hop record",
        "last step → run ended: the DAG loop",
        "run ended → caller: the waiter wakes (the final write follows it)",
    ];

    public string Name => "gateway";

    public string Description => "The workflow gateway's cost: a census.import hop made directly and through a run (in process, and over REST + SSE), the overhead per hop, sustained runs per second with 1–16 in flight, and the run store's share.";

    public async Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(context);
        var loadBefore = LoadAverage();
        await using var gateway = await GatewayHost.StartAsync(Concurrent, QueueDepth, cancellationToken);
        await gateway.Services.ChannelAsync("census", cancellationToken); // starts the embedded census service
        var census = gateway.Services.Endpoints.Single(e => e.Name == "census");
        using var channel = GrpcChannel.ForAddress(census.GrpcAddress);
        var client = new CensusClient(channel);
        using var rest = new RestRunClient(gateway.Ports.RestAddress);

        // The first run imports the file into the gateway's store; every later import finds it.
        var first = await RunInProcessAsync(gateway.Runs, s_importQuery, cancellationToken);
        context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  first run (imports {Source}): {first.Finished - first.Created}"));

        var chainRun = await HopOverheadAsync(context, gateway, client, rest, cancellationToken);
        await StoreCostAsync(context, gateway, chainRun, cancellationToken);
        await ThroughputAsync(context, client, cancellationToken);
        BeforeAndAfter(context);
        Figure(context);

        context.Section("The web console",
            "The console's page weight and first paint are measured in a browser, beside the console as it was before " +
            "(`node bench/console/console-weight.mjs`): [gateway-console.md](gateway-console.md).");

        var loadAfter = LoadAverage();
        context.Add("machine,when=start", "load_average_1m", loadBefore, "threads");
        context.Add("machine,when=end", "load_average_1m", loadAfter, "threads");
        context.Section("Other load on the machine",
            string.Create(CultureInfo.InvariantCulture, $"The 1-minute load average (`/proc/loadavg`) was {loadBefore:0.##} when this experiment started and {loadAfter:0.##} when it ended, ") +
            "on 2 vCPUs; the benchmark itself keeps about one busy. Anything else running on the VM lands on every path alike (they are interleaved), " +
            "but widens the tails.");
    }

    /// <summary>
    /// This run beside two earlier full runs: the last made while a run still awaited its store writes
    /// and SQLite checkpointed inside commits (<c>gateway.awaited-writes.json</c>, 2026-11-25), and the
    /// last made before the accept path was trimmed (<c>gateway.accept-uncached.json</c>, 2026-11-29).
    /// The machines' speeds differ from day to day, so each figure is also given against its own run's
    /// direct call.
    /// </summary>
    private static void BeforeAndAfter(ExperimentContext context)
    {
        Compare(context, "awaited-writes", "Before and after: store writes off the caller's path",
            "The earlier figures are the last full run of this experiment made while a run awaited steps + 2 store writes and read the " +
            "finished run back, and SQLite checkpointed inside the commit that crossed 1,000 pages (`gateway.awaited-writes.json`, " +
            "2026-11-25 16:50 UTC, a 2-vCPU VM like this one, on an AMD EPYC); now a caller waits for the insert only and checkpoints run in the background. " +
            "The VM's speed differs between the two days, so each overhead is also given ÷ the direct call's latency at the same percentile in its own run.",
            withUpdates: true);
        Compare(context, "accept-uncached", "Before and after: the accept path",
            "The earlier figures are the last full run before the path that accepts a run was trimmed (`gateway.accept-uncached.json`, " +
            "2026-11-29 04:34 UTC, this VM): then every submit read its YAML anew, every store write opened a pooled connection and " +
            "applied its settings and prepared its statement, and a run started on whichever pool thread woke first. Now texts read " +
            "without an error are remembered (a submit of the same workflow is only checked, with its overrides), writes go through " +
            "one held connection with the job's insert and update prepared once, and a run starts while its insert is made: both are " +
            "queued on the submitting thread's own queue, the run last, so that thread starts the run up to its first call and then " +
            "makes the insert, unless an idle thread took the insert first. The two segments of the accept path are compared too (p50); " +
            "the second then held the insert, now the insert goes on beside it. A REST caller then made two requests (`POST /api/runs`, then " +
            "`GET /api/runs/{id}/events`); now it reads the events in the POST's answer (`Accept: text/event-stream`); this run's " +
            "two-request row above is the same comparison on the same machine.",
            withUpdates: false);
    }

    private static void Compare(ExperimentContext context, string stage, string title, string text, bool withUpdates)
    {
        var path = context.FilePath($".{stage}.json");
        if (!File.Exists(path))
        {
            return;
        }

        var before = JsonSerializer.Deserialize<List<ResultRow>>(File.ReadAllText(path)) ?? [];
        double Before(string @case, string metric) => before.LastOrDefault(r => r.Case == @case && r.Metric == metric)?.Value ?? double.NaN;
        var table = new List<IReadOnlyList<string>>();
        foreach (var (key, label) in new[] { ("path=gateway,steps=1", "run, 1 step (in process)"), ("path=gateway,steps=3", "run, 3 chained steps (in process)"), ("path=rest-sse,steps=1", "run, 1 step (REST + SSE: one request now, POST then GET before)") })
        {
            foreach (var p in new[] { "p50", "p99" })
            {
                var then = Before(key, $"overhead_per_hop_{p}_us");
                var now = context.Value(key, $"overhead_per_hop_{p}_us");
                var thenDirect = Before("path=direct,op=census.Import", $"{p}_us");
                var nowDirect = context.Value("path=direct,op=census.Import", $"{p}_us");
                context.Add($"{key},stage={stage}", $"overhead_per_hop_{p}_us", then, "us");
                table.Add([label, p, F(then), F(then / thenDirect, 2), F(now), F(now / nowDirect, 2), F(now / then, 2)]);
            }
        }

        if (withUpdates)
        {
            var updateThen = Before("store=sqlite,op=update_run", "fraction_over_1ms");
            var updateNow = context.Value("store=sqlite,op=update_run", "fraction_over_1ms");
            text += string.Create(CultureInfo.InvariantCulture, $" Run-record updates over 1 ms: {updateThen:P2} then, {updateNow:P2} now.");
        }
        else
        {
            var thenDirect = Before("path=direct,op=census.Import", "p50_us");
            var nowDirect = context.Value("path=direct,op=census.Import", "p50_us");
            foreach (var (key, label) in new[] { ("path=gateway,steps=1", "1 step"), ("path=gateway,steps=3", "3 steps") })
            {
                for (var segment = 0; segment < 2; segment++)
                {
                    var then = Before($"{key},segment={segment}", "p50_us");
                    var now = context.Value($"{key},segment={segment}", "p50_us");
                    context.Add($"{key},segment={segment},stage={stage}", "p50_us", then, "us");
                    table.Add([$"{label}: {s_segments[segment]}", "p50", F(then), F(then / thenDirect, 2), F(now), F(now / nowDirect, 2), F(now / then, 2)]);
                }
            }

            var updateThen = Before("store=sqlite,op=update_run", "p50_us");
            var updateNow = context.Value("store=sqlite,op=update_run", "p50_us");
            text += string.Create(CultureInfo.InvariantCulture, $" A run-record update in a loop, p50: {updateThen:0.#} µs then, {updateNow:0.#} µs now.");
        }

        context.Section(title, text);
        context.Table(["path (overhead per hop) or segment", "percentile", "then µs", "then ÷ direct", "now µs", "now ÷ direct", "now ÷ then"], table);
    }

    /// <summary>The 1-minute load average, or NaN where there is no <c>/proc/loadavg</c>.</summary>
    private static double LoadAverage()
    {
        try
        {
            return double.Parse(File.ReadAllText("/proc/loadavg").Split(' ')[0], CultureInfo.InvariantCulture);
        }
        catch (IOException)
        {
            return double.NaN;
        }
    }

    private sealed record Sample(double WallUs, double SubmitUs, IReadOnlyList<double> HopUs, double[]? SegmentUs = null, bool InsertOutlastedRun = false)
    {
        public double OverheadPerHopUs => (WallUs - HopUs.Sum()) / HopUs.Count;
    }

    private sealed record PathCase(string Key, string Label, int Steps, Func<CancellationToken, Task<Sample>> Measure);

    /// <summary>Per-hop latency and overhead, one call or run in flight, every path sampled in each round.</summary>
    private static async Task<Guid> HopOverheadAsync(ExperimentContext context, GatewayHost gateway, CensusClient client, RestRunClient rest, CancellationToken cancellationToken)
    {
        var request = new ImportCensusRequest { Source = Source };
        var runs = gateway.Runs;
        var lastChain = Guid.Empty;
        // A call timed alone: its latency is the whole sample.
        static Func<CancellationToken, Task<Sample>> Alone(Func<CancellationToken, Task> call) => async ct =>
        {
            var start = Stopwatch.GetTimestamp();
            await call(ct);
            var us = Stopwatch.GetElapsedTime(start).TotalMicroseconds;
            return new Sample(us, us, [us]);
        };

        // A 1-step run over REST, its events in the POST's answer or from a GET after it.
        Func<CancellationToken, Task<Sample>> OverRest(bool eventsInAnswer) => async ct =>
        {
            var start = Stopwatch.GetTimestamp();
            var view = await rest.RunAsync(s_oneStep, eventsInAnswer, ct);
            return Checked(view, Stopwatch.GetElapsedTime(start).TotalMicroseconds, double.NaN);
        };

        var cases = new PathCase[]
        {
            new("path=direct,op=census.Import", "direct gRPC call", 1, Alone(async ct => await client.ImportAsync(request, new CallOptions(cancellationToken: ct)))),
            new(HttpFloor, "HTTP request alone: GET /api/console (REST's floor, no run)", 0, Alone(ct => rest.GetAsync("/api/console", ct))),
            new("path=gateway,steps=1", "run, 1 step (in process)", 1, ct => TimedRunAsync(runs, s_oneStep, ct)),
            new("path=gateway,steps=3", "run, 3 chained steps (in process)", 3, ct => TimedRunAsync(runs, s_threeSteps, ct, id => lastChain = id)),
            new("path=rest-sse,steps=1", "run, 1 step (REST + SSE)", 1, OverRest(eventsInAnswer: true)),
            new("path=rest-post-get,steps=1", "run, 1 step (REST: POST, then GET its events)", 1, OverRest(eventsInAnswer: false)),
        };

        // Tiered JIT: every path on both sides must reach its optimised code before anything is
        // measured; then a sequential warm-up, then the measured rounds.
        var prime = context.Quick ? TimeSpan.FromSeconds(1.5) : TimeSpan.FromSeconds(8);
        foreach (var path in cases)
        {
            await LoadDriver.RunAsync(4, prime, TimeSpan.FromMilliseconds(100), () => async () => await path.Measure(cancellationToken), cancellationToken);
        }

        var repeats = context.Quick ? 1 : 3;
        var rounds = context.Quick ? 300 : 1_000;
        var results = cases.ToDictionary(c => c.Key, _ => new List<IReadOnlyList<Sample>>());
        for (var r = 0; r < repeats; r++)
        {
            var samples = cases.ToDictionary(c => c.Key, _ => new List<Sample>(rounds));
            for (var i = -rounds / 10; i < rounds; i++)
            {
                // Each round takes every path once, starting from a different one: the VM's noise falls on all alike.
                for (var k = 0; k < cases.Length; k++)
                {
                    var path = cases[(i + k + cases.Length * rounds) % cases.Length];
                    var sample = await path.Measure(cancellationToken);
                    if (i >= 0)
                    {
                        samples[path.Key].Add(sample);
                    }
                }
            }

            foreach (var (key, list) in samples)
            {
                results[key].Add(list);
            }
        }

        // The same call back to back, nothing in between: the floor when every thread and cache is hot.
        var floor = await LoadDriver.RunAsync(1, context.Quick ? TimeSpan.FromSeconds(0.5) : TimeSpan.FromSeconds(1), context.Quick ? TimeSpan.FromSeconds(1) : TimeSpan.FromSeconds(3),
            () => async () => await client.ImportAsync(request, new CallOptions(cancellationToken: cancellationToken)), cancellationToken);
        context.Add("path=direct-back-to-back,op=census.Import", "p50_us", floor.P50Microseconds, "us");
        context.Add("path=direct-back-to-back,op=census.Import", "p99_us", floor.P99Microseconds, "us");

        double Stat(string key, Func<Sample, IEnumerable<double>> select, double percentile) =>
            Statistics.Median([.. results[key].Select(repeat => Statistics.Percentile([.. repeat.SelectMany(select)], percentile))]);

        var direct50 = Stat(cases[0].Key, s => [s.WallUs], 50);
        var direct99 = Stat(cases[0].Key, s => [s.WallUs], 99);
        context.Add(cases[0].Key, "p50_us", direct50, "us");
        context.Add(cases[0].Key, "p99_us", direct99, "us");
        var table = new List<IReadOnlyList<string>>
        {
            new[] { "direct gRPC call, back to back (the hot floor)", "1", F(floor.P50Microseconds), F(floor.P99Microseconds), "–", "–", "–", "–", "–", "–", "–" },
            new[] { cases[0].Label, "1", F(direct50), F(direct99), F(direct50), F(direct99), "–", "–", "1", "1", "1" },
        };
        var httpFloor50 = Stat(HttpFloor, s => [s.WallUs], 50);
        var httpFloor99 = Stat(HttpFloor, s => [s.WallUs], 99);
        context.Add(HttpFloor, "p50_us", httpFloor50, "us");
        context.Add(HttpFloor, "p99_us", httpFloor99, "us");
        table.Add([cases[1].Label, "–", F(httpFloor50), F(httpFloor99), "–", "–", "–", "–", "–", F(httpFloor50 / direct50, 2), F(httpFloor99 / direct99, 2)]);
        foreach (var path in cases.Skip(2))
        {
            var key = path.Key;
            var run50 = Stat(key, s => [s.WallUs], 50);
            var run99 = Stat(key, s => [s.WallUs], 99);
            var hop50 = Stat(key, s => s.HopUs, 50);
            var hop99 = Stat(key, s => s.HopUs, 99);
            var over50 = Stat(key, s => [s.OverheadPerHopUs], 50);
            var over99 = Stat(key, s => [s.OverheadPerHopUs], 99);
            context.Add(key, "run_p50_us", run50, "us");
            context.Add(key, "run_p99_us", run99, "us");
            context.Add(key, "hop_p50_us", hop50, "us");
            context.Add(key, "hop_p99_us", hop99, "us");
            context.Add(key, "overhead_per_hop_p50_us", over50, "us");
            context.Add(key, "overhead_per_hop_p99_us", over99, "us");
            if (path.Key.StartsWith("path=gateway", StringComparison.Ordinal))
            {
                context.Add(key, "submit_p50_us", Stat(key, s => [s.SubmitUs], 50), "us");
            }

            context.Add(key, "ratio_hop_to_direct_p50", hop50 / direct50, "ratio");
            context.Add(key, "ratio_hop_to_direct_p99", hop99 / direct99, "ratio");
            context.Add(key, "ratio_run_to_direct_p50", run50 / direct50, "ratio");
            context.Add(key, "ratio_run_to_direct_p99", run99 / direct99, "ratio");
            table.Add([path.Label, path.Steps.ToString(CultureInfo.InvariantCulture), F(run50), F(run99), F(hop50), F(hop99), F(over50), F(over99),
                F(hop50 / direct50, 2), F(run50 / direct50, 2), F(run99 / direct99, 2)]);
        }

        context.Section("Gateway overhead per hop",
            "One gRPC unary call, census `Import` of `" + Source + "` (1,000 block groups, already in the store, so the service " +
            "only looks the dataset up): made directly by a `CensusClient` on its own `GrpcChannel` to the census service the " +
            "gateway embeds (its address from the gateway's `ServiceDirectory`), and as the step(s) of a run of an inline-YAML " +
            "workflow — in process (`RunManager.SubmitAsync` then `WaitAsync`) and as a REST client does it (`POST /api/runs` with `Accept: text/event-stream`, reading the " +
            "run's events in its answer until the final `run` event; and, as before that answer existed, the POST and then " +
            "`GET /api/runs/{id}/events`). `3 chained steps` are three such imports, each `after` the one " +
            "before. One call or run in flight; every round takes each path once, starting from a different path each round. " +
            string.Create(CultureInfo.InvariantCulture, $"{rounds:N0} rounds per repeat (after {rounds / 10:N0} unmeasured), ") +
            $"{repeats} repeat(s), medians of the repeats' percentiles; before that every path ran 4-wide until the JIT had optimised it. " +
            "The back-to-back row is the same direct call repeated with nothing in between (no ratios are taken against it). " +
            "The HTTP row is a bare request to the gateway through all its middleware (`GET /api/console`, a few bytes of JSON) on the " +
            "REST client's connection, taken in the same rounds: what a REST path pays before any run, so the REST rows' overhead " +
            "per hop includes it. " +
            "`run` is wall time from submit to the completed run as the caller sees it; `hop` is the latency the gateway recorded " +
            "for each of its census calls (its `HopRecorder`, client-observed, so it should match the direct call); `overhead/hop` is " +
            "(run − Σ hop latencies) / hops per run: parsing and validating the YAML, queueing, the DAG, the step bookkeeping and " +
            "the one store write a caller waits for (the run's insert). The gateway runs in this process (the benchmark's workstation, non-concurrent GC), " +
            string.Create(CultureInfo.InvariantCulture, $"with `Gateway:Runs:Concurrent` = {Concurrent} and `QueueDepth` = {QueueDepth}, a fresh SQLite store, logs at Warning."));
        context.Table(["path", "steps", "run p50 µs", "run p99 µs", "hop p50 µs", "hop p99 µs", "overhead/hop p50 µs", "overhead/hop p99 µs",
            "hop ÷ direct p50", "run ÷ direct p50", "run ÷ direct p99"], table);

        // For the slowest 1% of runs: the segment in which each lost the most time.
        string[] breakdownKeys = ["path=gateway,steps=1", "path=gateway,steps=3"];
        var longest = breakdownKeys.ToDictionary(key => key, key =>
        {
            var pooled = results[key].SelectMany(repeat => repeat).ToList();
            var threshold = Statistics.Percentile([.. pooled.Select(s => s.WallUs)], 99);
            var slowest = pooled.Where(s => s.WallUs >= threshold).ToList();
            return (Count: slowest.Count, Segments: slowest.Select(s => Array.IndexOf(s.SegmentUs!, s.SegmentUs!.Max())).ToList(),
                InsertOutlasted: (All: pooled.Count(s => s.InsertOutlastedRun) / (double)pooled.Count, Slowest: slowest.Count(s => s.InsertOutlastedRun) / (double)slowest.Count));
        });

        var breakdown = new List<IReadOnlyList<string>>();
        for (var segment = 0; segment < s_segments.Length; segment++)
        {
            var cells = new List<string> { s_segments[segment] };
            foreach (var key in breakdownKeys)
            {
                var p50 = Stat(key, s => [s.SegmentUs![segment]], 50);
                var p99 = Stat(key, s => [s.SegmentUs![segment]], 99);
                var share = longest[key].Segments.Count(x => x == segment) / (double)longest[key].Count;
                context.Add($"{key},segment={segment}", "p50_us", p50, "us");
                context.Add($"{key},segment={segment}", "p99_us", p99, "us");
                context.Add($"{key},segment={segment}", "share_of_slowest_1pct", share, "ratio");
                cells.Add(F(p50));
                cells.Add(F(p99));
                cells.Add(string.Create(CultureInfo.InvariantCulture, $"{share:P0}"));
            }

            breakdown.Add(cells);
        }

        context.Paragraph("Where an in-process run's time goes, cut at the instants the run records (its created, started and finished " +
            "times, each step's, each hop's start and latency) and the caller's submit and return; percentiles per segment (so they need not " +
            "add up to the run's), per-step segments summed over the run's steps. `slowest 1%` counts, of the runs at or above the run's p99 " +
            "(all repeats pooled), those whose longest segment is this one:");
        context.Table(["segment", "1 step p50 µs", "1 step p99 µs", "1 step: slowest 1%", "3 steps p50 µs", "3 steps p99 µs", "3 steps: slowest 1%"], breakdown);
        foreach (var key in breakdownKeys)
        {
            context.Add(key, "insert_outlasted_run", longest[key].InsertOutlasted.All, "ratio");
            context.Add(key, "insert_outlasted_run_slowest_1pct", longest[key].InsertOutlasted.Slowest, "ratio");
        }

        var one = longest[breakdownKeys[0]].InsertOutlasted;
        var three = longest[breakdownKeys[1]].InsertOutlasted;
        context.Paragraph(
            "The caller hears a run's id only once its insert is stored, so a run that ends before its insert lands waits for it in the last segment. " +
            string.Create(CultureInfo.InvariantCulture,
            $"The insert outlasted the run in {one.All:P1} of 1-step runs and {one.Slowest:P0} of the slowest 1% of them ({three.All:P1} and {three.Slowest:P0} with 3 steps)."));
        return lastChain;
    }

    /// <summary>What one run-store write costs, timed on a real run's record, and how much of the overhead the writes make.</summary>
    private static async Task StoreCostAsync(ExperimentContext context, GatewayHost gateway, Guid chainRun, CancellationToken cancellationToken)
    {
        var store = gateway.Store;
        var record = await store.GetJobAsync(chainRun, cancellationToken) ?? throw new InvalidOperationException("The measured run is not in the store.");
        var view = await gateway.Runs.GetRequiredAsync(chainRun, cancellationToken);
        var count = context.Quick ? 500 : 3_000;
        var update = new List<double>(count);
        var read = new List<double>(count);
        var serialize = new List<double>(count);
        for (var i = -count / 10; i < count; i++)
        {
            var start = Stopwatch.GetTimestamp();
            await store.UpdateJobAsync(record, cancellationToken);
            var written = Stopwatch.GetTimestamp();
            await store.GetJobAsync(chainRun, cancellationToken);
            var readBack = Stopwatch.GetTimestamp();
            JsonSerializer.Serialize(view, s_json);
            var end = Stopwatch.GetTimestamp();
            if (i >= 0)
            {
                update.Add(Stopwatch.GetElapsedTime(start, written).TotalMicroseconds);
                read.Add(Stopwatch.GetElapsedTime(written, readBack).TotalMicroseconds);
                serialize.Add(Stopwatch.GetElapsedTime(readBack, end).TotalMicroseconds);
            }
        }

        var table = new List<IReadOnlyList<string>>();
        foreach (var (op, values, what) in new[]
        {
            ("update_run", update, "`UpdateJobAsync` (the upsert every step change makes) of a finished 3-step run's record"),
            ("get_run", read, "`GetJobAsync` of that record (`WaitAsync` reads the finished run back from the store)"),
            ("serialize_run_json", serialize, "`JsonSerializer.Serialize` of that run's view (done for every write)"),
        })
        {
            var key = $"store=sqlite,op={op}";
            var slow = values.Count(v => v > 1000) / (double)values.Count;
            context.Add(key, "p50_us", Statistics.Percentile(values, 50), "us");
            context.Add(key, "p99_us", Statistics.Percentile(values, 99), "us");
            context.Add(key, "p999_us", Statistics.Percentile(values, 99.9), "us");
            context.Add(key, "max_us", values.Max(), "us");
            context.Add(key, "fraction_over_1ms", slow, "ratio");
            table.Add([what, F(Statistics.Percentile(values, 50)), F(Statistics.Percentile(values, 99)), F(Statistics.Percentile(values, 99.9)), F(values.Max()),
                string.Create(CultureInfo.InvariantCulture, $"{slow:P2}")]);
        }

        // The one write on a run's critical path: the insert at submit (steps, starts and the end are stored in the background).
        var rows = new List<IReadOnlyList<string>>();
        foreach (var steps in new[] { 1, 3 })
        {
            var key = $"path=gateway,steps={steps}";
            const int writes = 1;
            var estimate = writes * Statistics.Median(update);
            var overhead = context.Value(key, "overhead_per_hop_p50_us") * steps;
            context.Add(key, "store_writes_per_run", writes, "count");
            context.Add(key, "store_estimate_us", estimate, "us");
            context.Add(key, "ratio_store_to_overhead", estimate / overhead, "ratio");
            rows.Add([steps.ToString(CultureInfo.InvariantCulture), writes.ToString(CultureInfo.InvariantCulture), F(estimate), F(overhead), F(estimate / overhead, 2)]);
        }

        context.Section("The run store's share",
            string.Create(CultureInfo.InvariantCulture, $"Each run is a job record in the gateway's SQLite store (WAL, synchronous=NORMAL). Timed {count:N0} times in a row after the runs above, ") +
            $"on a real record ({record.ResultJson?.Length ?? 0:N0} characters of run JSON):");
        context.Table(["operation", "p50 µs", "p99 µs", "p99.9 µs", "max µs", "> 1 ms"], table);
        context.Paragraph("Writes go through one connection the store holds from its first write, with a job's insert and update " +
            "prepared once; a connection's settings are applied the first time the pool hands it out.");
        context.Paragraph("No write waits for a checkpoint: the store turns SQLite's own off (`wal_autocheckpoint = 0`), and a write that " +
            "finds the write-ahead log past 1,000 pages starts a PASSIVE checkpoint in the background and returns. The log restarts only when a " +
            "write begins after a checkpoint copied all of it, so writes back to back, as in the loop timed here, grow it until it passes 16 MB; " +
            "then writers wait while the checkpoint copies once more with them held back: those waits are the updates over 1 ms above. " +
            "A run's few writes never come that fast. With SQLite's default, the " +
            "commit that crossed 1,000 pages copied the log into the database and synced it, so one write in a few hundred took milliseconds " +
            "(the earlier figures below: 0.27 % of updates over 1 ms, and the run p99s they made).");
        context.Paragraph("A caller waits for one store write: the insert that accepts the run (it must be stored before the caller hears " +
            "its id, or a crash could lose an accepted run). The run starts while it is made; the run's own writes wait for it, and a run " +
            "the store refuses is stopped before its caller hears, never listed nor written. Everything after is stored in the background, written " +
            "behind (`Gateway:Runs:WriteBehind`, 100 ms: the changes meanwhile cost one write, so a run shorter than that is written at its end only), each write the " +
            "run's whole view: a step's start, its success (the store never holds a step without the steps it built on, since every write " +
            "stores the whole view), its failure, and the run's end, which waiters hear first; the run stays live, and the gateway's stop " +
            "waits, until that last write lands. A step that starts a service job still waits for the write that records the job's id, so " +
            "a resumed run takes the same job up again. `WaitAsync` returns the run's final view from memory, not read back. A crash " +
            "before a background write lands costs the steps since the last one being run again on resume; no run is lost. The insert's " +
            "estimated cost (the update's p50) against the measured overhead of the whole run (p50); made beside the run's start, it " +
            "adds to the run only where it outlasts what the run does meanwhile:");
        context.Table(["steps", "writes", "store estimate µs", "overhead per run µs", "share"], rows);
    }

    /// <summary>Closed-loop submitters, each starting its next run when its last one completed.</summary>
    private static async Task ThroughputAsync(ExperimentContext context, CensusClient client, CancellationToken cancellationToken)
    {
        int[] submitters = [1, 4, 16];
        var window = context.Quick ? TimeSpan.FromSeconds(4) : TimeSpan.FromSeconds(7);
        var warmup = context.Quick ? TimeSpan.FromSeconds(0.5) : TimeSpan.FromSeconds(1);
        var repeats = context.Quick ? 1 : 3;
        var import = new ImportCensusRequest { Source = Source };

        // Repeats alternate between the paths being compared, so slow phases of the VM fall on both.
        async Task<LoadResult[]> MeasureAsync(int callers, params Func<Caller>[] creates)
        {
            var results = creates.Select(_ => new List<LoadResult>()).ToArray();
            for (var r = 0; r < repeats; r++)
            {
                for (var c = 0; c < creates.Length; c++)
                {
                    results[c].Add(await LoadDriver.RunAsync(callers, warmup, window, creates[c], cancellationToken));
                }
            }

            return [.. results.Select(list => new LoadResult(Statistics.Median([.. list.Select(x => x.RequestsPerSecond)]),
                Statistics.Median([.. list.Select(x => x.P50Microseconds)]), Statistics.Median([.. list.Select(x => x.P99Microseconds)])))];
        }

        Caller Gateway(RunManager runs) => async () => await RunInProcessAsync(runs, s_importQuery, cancellationToken);
        Caller Direct() => async () =>
        {
            var info = await client.ImportAsync(import, new CallOptions(cancellationToken: cancellationToken));
            await client.QueryAsync(new QueryCensusRequest { DatasetId = info.DatasetId, SkipUnpopulated = true }, new CallOptions(cancellationToken: cancellationToken));
        };

        var table = new List<IReadOnlyList<string>>();
        void Add(string path, int concurrent, int callers, LoadResult result, double direct)
        {
            var key = path switch
            {
                "direct" => $"path=direct,workflow=import-query,submitters={callers}",
                "at-once" => $"path=gateway,workflow=import-query,concurrent={concurrent},write_behind_ms=0,submitters={callers}",
                _ => $"path=gateway,workflow=import-query,concurrent={concurrent},submitters={callers}",
            };
            context.Add(key, "runs_per_s", result.RequestsPerSecond, "1/s");
            context.Add(key, "p50_us", result.P50Microseconds, "us");
            context.Add(key, "p99_us", result.P99Microseconds, "us");
            if (path != "direct")
            {
                context.Add(key, "ratio_to_direct", result.RequestsPerSecond / direct, "ratio");
            }

            var label = path switch { "direct" => "direct (Import, then Query)", "at-once" => "gateway run, each change written at once (`WriteBehind` 0)", _ => "gateway run" };
            table.Add([label, path == "direct" ? "–" : concurrent.ToString(CultureInfo.InvariantCulture),
                callers.ToString(CultureInfo.InvariantCulture), F(result.RequestsPerSecond, 4), F(result.P50Microseconds), F(result.P99Microseconds),
                path == "direct" ? "1" : F(result.RequestsPerSecond / direct, 2)]);
        }

        // Two gateways started together, so that their stores and heaps are of an age (the one the latency rounds used has
        // thousands of runs behind it): runs written behind (the default), and each change of a run written at once, as
        // before the write-behind, in the same repeats (at every submitter count; the quick run only at the most).
        await using var gateway = await GatewayHost.StartAsync(Concurrent, QueueDepth, cancellationToken);
        await using var atOnce = await GatewayHost.StartAsync(Concurrent, QueueDepth, cancellationToken, writeBehind: TimeSpan.Zero);
        await RunInProcessAsync(gateway.Runs, s_importQuery, cancellationToken); // their own stores: import first
        await RunInProcessAsync(atOnce.Runs, s_importQuery, cancellationToken);
        double lastDirect = double.NaN;
        foreach (var callers in submitters)
        {
            var compared = !context.Quick || callers == submitters[^1];
            var measured = compared
                ? await MeasureAsync(callers, Direct, () => Gateway(gateway.Runs), () => Gateway(atOnce.Runs))
                : await MeasureAsync(callers, Direct, () => Gateway(gateway.Runs));
            Add("direct", 0, callers, measured[0], measured[0].RequestsPerSecond);
            Add("gateway", Concurrent, callers, measured[1], measured[0].RequestsPerSecond);
            if (compared)
            {
                Add("at-once", Concurrent, callers, measured[2], measured[0].RequestsPerSecond);
            }

            lastDirect = measured[0].RequestsPerSecond;
        }

        // The default slots: a second gateway, since the limits are read when it starts.
        await using (var bounded = await GatewayHost.StartAsync(DefaultConcurrent, QueueDepth, cancellationToken))
        {
            await RunInProcessAsync(bounded.Runs, s_importQuery, cancellationToken); // its own store: import first
            await LoadDriver.RunAsync(4, context.Quick ? TimeSpan.FromSeconds(1) : TimeSpan.FromSeconds(3), TimeSpan.FromMilliseconds(100), () => Gateway(bounded.Runs), cancellationToken);
            Add("gateway", DefaultConcurrent, submitters[^1], (await MeasureAsync(submitters[^1], () => Gateway(bounded.Runs)))[0], lastDirect);
        }

        context.Section("Sustained runs per second",
            "A two-step workflow, census `import` of `" + Source + "` then `query` of its dataset (skip unpopulated; 1,000 points read " +
            "from the store and the existing selection found), run by closed-loop submitters: each submits a run in process and waits " +
            "for it to complete, then submits the next. The baseline makes the same two calls directly, Import then Query, the same " +
            string.Create(CultureInfo.InvariantCulture, $"number of callers, in the same run. Each case warms up for {warmup.TotalSeconds:0.#} s, then counts the runs completed in a {window.TotalSeconds:0.#} s window; ") +
            $"{repeats} repeat(s), alternating between direct and gateway, medians. p50/p99 are per-run latencies (submit to completion). " +
            string.Create(CultureInfo.InvariantCulture, $"The measured gateway has `Gateway:Runs:Concurrent` = {Concurrent} (above the largest submitter count, so the run slots do not bound it) and `QueueDepth` = {QueueDepth}; ") +
            "Runs are written behind (`Gateway:Runs:WriteBehind`, 100 ms by default): a two-step run of a few milliseconds is written twice, its " +
            "insert and its end; `each change written at once` is a second gateway with `WriteBehind` 0, as every gateway was before it, " +
            "measured in the same repeats (each step's start and success, and its hops, then written as they come, coalesced only while a write is in flight); " +
            "both are gateways of their own, started together for this table (the direct calls go to the census service of the gateway measured above). " +
            string.Create(CultureInfo.InvariantCulture, $"The last row is a third gateway with the default {DefaultConcurrent} slots at {submitters[^1]} submitters, where runs queue for a slot (its ratio is against the direct rate at {submitters[^1]} callers above). ") +
            "Client, gateway and the embedded census service share the VM's 2 cores.");
        context.Table(["path", "run slots", "submitters", "runs/s", "p50 µs", "p99 µs", "÷ direct"], table);
    }

    private static void Figure(ExperimentContext context)
    {
        string[] keys = ["path=direct,op=census.Import", "path=gateway,steps=1", "path=rest-sse,steps=1", "path=gateway,steps=3"];
        string[] labels = ["direct call", "run, 1 step", "REST+SSE, 1 step", "run, 3 steps"];
        var latency = new Chart("census.Import direct and in a run (1 in flight)", "", "µs") { YScale = Scale.Log10 };
        latency.AddBars("call / run p50", labels, keys.Select((k, i) => context.Value(k, i == 0 ? "p50_us" : "run_p50_us")).ToArray(), Figures.Bars(Figures.Colour(0)));
        latency.AddBars("call / run p99", labels, keys.Select((k, i) => context.Value(k, i == 0 ? "p99_us" : "run_p99_us")).ToArray(), Figures.Bars(Figures.Colour(1)));
        latency.AddBars("the call as the gateway's hop, p50", labels, keys.Select((k, i) => i == 0 ? double.NaN : context.Value(k, "hop_p50_us")).ToArray(), Figures.Bars(Figures.Colour(3)));
        latency.AddBars("gateway overhead per hop, p50", labels, keys.Select((k, i) => i == 0 ? double.NaN : context.Value(k, "overhead_per_hop_p50_us")).ToArray(), Figures.Bars(Figures.Colour(2)));

        double[] submitters = [1, 4, 16];
        var rate = new Chart("Runs per second (import → query), closed loop", "submitters (runs in flight)", "runs/s") { XScale = Scale.Log10 };
        rate.AddLine("direct: the same 2 calls", submitters, submitters.Select(n => context.Value($"path=direct,workflow=import-query,submitters={n}", "runs_per_s")).ToArray(), Figures.Ours(Figures.Colour(0), MarkerShape.FilledSquare));
        rate.AddLine($"gateway, {Concurrent} run slots", submitters, submitters.Select(n => context.Value($"path=gateway,workflow=import-query,concurrent={Concurrent},submitters={n}", "runs_per_s")).ToArray(), Figures.Ours(Figures.Colour(1)));
        rate.AddLine($"gateway, {Concurrent} slots, each change written at once", submitters, submitters.Select(n => context.Value($"path=gateway,workflow=import-query,concurrent={Concurrent},write_behind_ms=0,submitters={n}", "runs_per_s")).ToArray(), Figures.Ours(Figures.Colour(3), MarkerShape.OpenCircle));
        rate.AddScatter($"gateway, {DefaultConcurrent} run slots (default)", [16], [context.Value($"path=gateway,workflow=import-query,concurrent={DefaultConcurrent},submitters=16", "runs_per_s")], Figures.Ours(Figures.Colour(2), MarkerShape.FilledDiamond));
        // Headroom above the tallest bar for the legend (a log axis).
        var values = latency.Values.Where(v => v > 0).ToList();
        if (values.Count > 0)
        {
            latency.YLimits = new AxisRange(values.Min() / 2, values.Max() * 12);
        }

        Figures.SavePanels(context, [latency, rate], columns: 2);
    }

    private static async Task<Sample> TimedRunAsync(RunManager runs, string yaml, CancellationToken cancellationToken, Action<Guid>? id = null)
    {
        var began = DateTimeOffset.UtcNow;
        var start = Stopwatch.GetTimestamp();
        var run = await runs.SubmitAsync(new RunRequest { Yaml = yaml }, cancellationToken);
        var submitted = Stopwatch.GetElapsedTime(start).TotalMicroseconds;
        var final = await runs.WaitAsync(run.Id, cancellationToken);
        var wall = Stopwatch.GetElapsedTime(start).TotalMicroseconds;
        var ended = DateTimeOffset.UtcNow;
        id?.Invoke(run.Id);
        return Checked(final, wall, submitted) with
        {
            SegmentUs = Segments(final, began, ended),
            InsertOutlastedRun = submitted > (final.Finished!.Value - began).TotalMicroseconds, // the caller still waited for the insert when the run ended
        };
    }

    /// <summary>
    /// A run's wall time cut at the instants it records (created, started, each step's start and end,
    /// each hop's start and latency, finished), in the order of <see cref="s_segments"/>; per-step
    /// segments are summed over the steps. Only for runs whose steps ran one after another, one hop each.
    /// </summary>
    private static double[] Segments(RunView run, DateTimeOffset began, DateTimeOffset ended)
    {
        static double Us(DateTimeOffset from, DateTimeOffset to) => (to - from).TotalMicroseconds;
        var segments = new double[s_segments.Length];
        segments[0] = Us(began, run.Created);
        segments[1] = Us(run.Created, run.Started!.Value);
        var boundary = run.Started.Value;
        foreach (var step in run.Steps.OrderBy(s => s.Started))
        {
            // The step's call; its dataset digest read after it counts with the step's own work after the call.
            var hop = run.Hops.Where(h => h.Step == step.Id).MinBy(h => h.Start)!;
            var hopEnd = hop.Start + TimeSpan.FromMilliseconds(hop.LatencyMs);
            segments[2] += Us(boundary, step.Started!.Value);
            segments[3] += Us(step.Started.Value, hop.Start);
            segments[4] += hop.LatencyMs * 1000;
            segments[5] += Us(hopEnd, step.Finished!.Value);
            boundary = step.Finished.Value;
        }

        segments[6] = Us(boundary, run.Finished!.Value);
        segments[7] = Us(run.Finished.Value, ended);
        return segments;
    }

    private static async Task<RunView> RunInProcessAsync(RunManager runs, string yaml, CancellationToken cancellationToken)
    {
        var run = await runs.SubmitAsync(new RunRequest { Yaml = yaml }, cancellationToken);
        var final = await runs.WaitAsync(run.Id, cancellationToken);
        return final.State == RunState.Succeeded ? final : throw new InvalidOperationException($"The benchmark's run {final.Id} ended {final.State}: {final.Error}");
    }

    private static Sample Checked(RunView final, double wallUs, double submitUs) =>
        final.State == RunState.Succeeded && final.Hops.Count > 0 && final.Hops.All(h => h.Outcome == "ok" && h.Retries == 0)
            ? new Sample(wallUs, submitUs, [.. final.Hops.Select(h => h.LatencyMs * 1000)])
            : throw new InvalidOperationException($"The benchmark's run {final.Id} ended {final.State} ({final.Hops.Count} hops): {final.Error}");

    private static string F(double value, int significant = 3) => ExperimentContext.Format(value, significant);
}
