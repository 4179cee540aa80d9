using System.Diagnostics;
using System.Net.Http.Json;
using System.Net.Sockets;
using Grpc.Core;
using Grpc.Health.V1;
using Grpc.Net.Client;
using Salsa.Bench.Harness;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Datasets;
using Salsa.Testing;

namespace Salsa.Bench.Experiments.Services;

/// <summary>
/// Paper 001 fig. 13: two-way messages per second between services on one PC (DSS 20,000–25,000
/// on 4 cores, Axis2 about 3,000). Small gRPC unary and REST request-responses from this process to
/// a service in another process, against a raw TCP echo between the same two processes (the floor)
/// measured in the same run; then how long the real imports take into each store.
/// </summary>
public sealed class ServicesExperiment : IExperiment
{
    private const double PaperDss = 22_500;
    private const double PaperAxis2 = 3_000;

    public string Name => "services";

    public string Description => "Paper 001 fig. 13: request-response rate and latency between two processes (gRPC, REST, raw TCP floor); census and compound imports into SQLite and PostgreSQL.";

    public async Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        await RequestResponseAsync(context, cancellationToken);
        await ImportsAsync(context, cancellationToken);
    }

    private static async Task RequestResponseAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        using var directory = new TemporaryDirectory("salsa-bench-");
        await using var service = await ServiceProcess.StartAsync("annealing", "Store:SqlitePath=" + directory.Combine("salsa.db"), cancellationToken);
        var jobId = await FinishedJobAsync(service, cancellationToken);

        int[] callerCounts = context.Quick ? [1, 64] : [1, 16, 64, 256];
        var window = context.Quick ? TimeSpan.FromSeconds(1) : TimeSpan.FromSeconds(3);
        var warmup = context.Quick ? TimeSpan.FromSeconds(0.5) : TimeSpan.FromSeconds(1);
        var repeats = context.Quick ? 1 : 3;

        using var grpc = GrpcChannel.ForAddress(service.Ports.GrpcAddress);
        var health = new Health.HealthClient(grpc);
        var jobs = new JobsClient(grpc);
        using var rest = new HttpClient(new SocketsHttpHandler { UseProxy = false, PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan }) { BaseAddress = service.Ports.RestAddress };
        var healthRequest = new HealthCheckRequest();
        var jobRequest = new JobRef { JobId = jobId };

        var cases = new (string Protocol, string Op, Func<Caller> Create)[]
        {
            ("tcp", "echo", () => TcpCaller(service.EchoPort)),
            ("grpc", "health", () => async () => await health.CheckAsync(healthRequest)),
            ("rest", "health", () => async () => (await rest.GetAsync("/alive", cancellationToken)).Dispose()),
            ("grpc", "job", () => async () => await jobs.GetAsync(jobRequest)),
            ("rest", "job", () => async () =>
            {
                using var response = await rest.GetAsync($"/api/jobs/{jobId}", cancellationToken);
                response.EnsureSuccessStatusCode();
                await response.Content.ReadAsByteArrayAsync(cancellationToken);
            }),
        };

        // Tiered JIT: every path on both sides must reach its optimised tier before anything is
        // measured (a one-second warm-up measured half the steady rate).
        var prime = context.Quick ? TimeSpan.FromSeconds(2) : TimeSpan.FromSeconds(6);
        foreach (var (_, _, create) in cases)
        {
            await LoadDriver.RunAsync(64, prime, TimeSpan.FromMilliseconds(100), create, cancellationToken);
        }

        var table = new List<IReadOnlyList<string>>();
        foreach (var callers in callerCounts)
        {
            double floor = double.NaN;
            foreach (var (protocol, op, create) in cases)
            {
                var runs = new List<LoadResult>();
                for (var r = 0; r < repeats; r++)
                {
                    runs.Add(await LoadDriver.RunAsync(callers, warmup, window, create, cancellationToken));
                }

                var rps = Statistics.Median([.. runs.Select(x => x.RequestsPerSecond)]);
                var p50 = Statistics.Median([.. runs.Select(x => x.P50Microseconds)]);
                var p99 = Statistics.Median([.. runs.Select(x => x.P99Microseconds)]);
                var key = protocol == "grpc" ? $"protocol=grpc,stack=grpc-dotnet,op={op},callers={callers}" : $"protocol={protocol},op={op},callers={callers}";
                context.Add(key, "rps", rps, "1/s");
                context.Add(key, "p50_us", p50, "us");
                context.Add(key, "p99_us", p99, "us");
                if (protocol == "tcp")
                {
                    floor = rps;
                }
                else
                {
                    context.Add(key, "ratio_to_tcp_floor", rps / floor, "ratio");
                    context.Add(key, "ratio_to_paper_dss", rps / PaperDss, "ratio");
                }

                table.Add([protocol, op, callers.ToString(), ExperimentContext.Format(rps, 4), ExperimentContext.Format(p50), ExperimentContext.Format(p99),
                    protocol == "tcp" ? "1" : ExperimentContext.Format(rps / floor, 2), protocol == "tcp" ? "–" : ExperimentContext.Format(rps / PaperDss, 2)]);
            }
        }

        context.Section("Request-response between two processes",
            "The client is this process; the service (the real annealing service host: Kestrel, middleware, telemetry, " +
            "Server-Timing) is a second process on loopback. `health` is grpc.health.v1 Check / REST `GET /alive`; `job` is " +
            "Jobs.Get / `GET /api/jobs/{id}` of a finished job, read from the SQLite store on every call. `tcp` is a raw " +
            "32-byte echo between the same two processes, one connection per caller: the floor set by the kernel and the " +
            "runtime, measured in the same run. `callers` = requests in flight. Every case is first run until the JIT has " +
            "optimised both sides, then each repeat warms up again before its measured window. Rates are medians of the repeats; " +
            $"p50/p99 are per-request latencies. Paper 001 fig. 13: DSS {PaperDss - 2_500:N0}–{PaperDss + 2_500:N0}/s on a 4-core PC, Axis2 ≈ {PaperAxis2:N0}/s. " +
            "Target: ≥ 50,000 gRPC request-responses per second on 2 cores (client and server share them).");
        context.Table(["protocol", "op", "callers", "requests/s", "p50 µs", "p99 µs", "÷ tcp floor", "÷ paper DSS"], table);
        BeforeAndAfter(context, callerCounts);
    }

    /// <summary>
    /// The gRPC figures of the hand-written stack the services ran on before grpc-dotnet, measured on
    /// this machine by this experiment before the move (<c>services.own-stack.json</c>), beside this run's.
    /// </summary>
    private static void BeforeAndAfter(ExperimentContext context, int[] callerCounts)
    {
        var path = context.FilePath(".own-stack.json");
        if (!File.Exists(path))
        {
            return;
        }

        var before = System.Text.Json.JsonSerializer.Deserialize<List<ResultRow>>(File.ReadAllText(path)) ?? [];
        var table = new List<IReadOnlyList<string>>();
        foreach (var callers in callerCounts)
        {
            foreach (var op in new[] { "health", "job" })
            {
                var own = before.Where(r => r.Case == $"protocol=grpc,op={op},callers={callers}").ToDictionary(r => r.Metric, r => r.Value);
                if (!own.TryGetValue("rps", out var ownRps))
                {
                    continue;
                }

                var ownKey = $"protocol=grpc,stack=own,op={op},callers={callers}";
                foreach (var metric in new[] { "rps", "p50_us", "p99_us", "ratio_to_tcp_floor" })
                {
                    context.Add(ownKey, metric, own[metric], metric == "rps" ? "1/s" : metric.EndsWith("_us", StringComparison.Ordinal) ? "us" : "ratio");
                }

                var now = context.Value($"protocol=grpc,stack=grpc-dotnet,op={op},callers={callers}", "rps");
                context.Add($"protocol=grpc,stack=grpc-dotnet,op={op},callers={callers}", "ratio_to_own_stack", now / ownRps, "ratio");
                table.Add([op, callers.ToString(System.Globalization.CultureInfo.InvariantCulture), ExperimentContext.Format(ownRps, 4),
                    ExperimentContext.Format(own["ratio_to_tcp_floor"], 2), ExperimentContext.Format(now, 4),
                    ExperimentContext.Format(context.Value($"protocol=grpc,stack=grpc-dotnet,op={op},callers={callers}", "ratio_to_tcp_floor"), 2),
                    ExperimentContext.Format(now / ownRps, 2)]);
            }
        }

        context.Section("gRPC before and after the move to grpc-dotnet",
            "`own` is the hand-written gRPC stack (Salsa.Grpc, deleted since), measured by this experiment on this machine just " +
            "before the move (`services.own-stack.json`, rows `protocol=grpc,stack=own`); `grpc-dotnet` is this run. The two runs " +
            "are minutes apart, not interleaved, so compare each against its own run's TCP floor as well as directly.");
        context.Table(["op", "callers", "own requests/s", "own ÷ tcp floor", "grpc-dotnet requests/s", "grpc-dotnet ÷ tcp floor", "grpc-dotnet ÷ own"], table);
    }

    private static async Task<string> FinishedJobAsync(ServiceProcess service, CancellationToken cancellationToken)
    {
        using var http = new HttpClient { BaseAddress = service.Ports.RestAddress };
        var csv = new System.Text.StringBuilder("x,y\n");
        var random = new Random(1);
        for (var i = 0; i < 200; i++)
        {
            csv.Append(System.Globalization.CultureInfo.InvariantCulture, $"{random.NextDouble()},{random.NextDouble()}\n");
        }

        using var upload = await http.PostAsync("/api/datasets/csv?name=bench&kind=dense&dimension=2", new StringContent(csv.ToString(), System.Text.Encoding.UTF8, "text/csv"), cancellationToken);
        upload.EnsureSuccessStatusCode();
        var dataset = (await upload.Content.ReadFromJsonAsync<System.Text.Json.JsonElement>(cancellationToken)).GetProperty("datasetId").GetString();
        using var start = await http.PostAsJsonAsync("/api/annealing/jobs", new { datasetId = dataset, maxClusters = 2 }, cancellationToken);
        start.EnsureSuccessStatusCode();
        var jobId = (await start.Content.ReadFromJsonAsync<System.Text.Json.JsonElement>(cancellationToken)).GetProperty("jobId").GetString()!;
        using var channel = GrpcChannel.ForAddress(service.Ports.GrpcAddress);
        var final = await new JobsClient(channel).WatchToEndAsync(jobId, options: new CallOptions(cancellationToken: cancellationToken));
        return final.State == JobState.Succeeded ? jobId : throw new InvalidOperationException($"the warm-up job ended {final.State}");
    }

    private static Caller TcpCaller(int port)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        socket.Connect(System.Net.IPAddress.Loopback, port);
        var buffer = new byte[TcpEcho.MessageBytes];
        return async () =>
        {
            await socket.SendAsync(buffer, SocketFlags.None);
            if (!await TcpEcho.ReadExactlyAsync(socket, buffer))
            {
                throw new IOException("the echo server closed the connection");
            }
        };
    }

    private static async Task ImportsAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var (census, censusPath, compounds, compoundsPath) = context.Quick
            ? ("indiana", CensusBlockGroups.IndianaPath, "40k", CompoundSet.Subset40kPath)
            : ("us", CensusBlockGroups.NationalPath, "all", CompoundSet.AllPath);
        var repeats = context.Quick ? 1 : 2;
        var censusRows = 0;
        var compoundRows = 0;
        var censusParse = Statistics.Median(ExperimentContext.Repeat(1, repeats, () => censusRows = CensusBlockGroups.ReadFile(censusPath).Count));
        var compoundParse = Statistics.Median(ExperimentContext.Repeat(1, repeats, () => compoundRows = CompoundSet.ReadFile(compoundsPath).Count));

        PostgresServer? postgres = null;
        string? postgresError = null;
        try
        {
            postgres = await PostgresServer.StartAsync(cancellationToken);
        }
        catch (Exception exception) when (exception is InvalidOperationException or IOException or TimeoutException or System.ComponentModel.Win32Exception)
        {
            postgresError = exception.Message;
        }

        var table = new List<IReadOnlyList<string>>();
        try
        {
            using var directory = new TemporaryDirectory("salsa-bench-");
            var databases = 0;
            foreach (var store in postgres is null ? ["sqlite"] : new[] { "sqlite", "postgres" })
            {
                foreach (var (service, source, rows, parse, body) in new[]
                {
                    ("census", census, censusRows, censusParse, (object)new { source = census }),
                    ("chem", compounds, compoundRows, compoundParse, new { source = compounds, limit = 0 }),
                })
                {
                    var seconds = new List<double>();
                    for (var r = 0; r < repeats; r++)
                    {
                        var setting = store == "sqlite"
                            ? "Store:SqlitePath=" + directory.Combine($"import-{++databases}.db")
                            : "ConnectionStrings:salsa=" + await postgres!.CreateDatabaseAsync($"bench_import_{++databases}", cancellationToken);
                        await using var process = await ServiceProcess.StartAsync(service, setting, cancellationToken);
                        using var http = new HttpClient { BaseAddress = process.Ports.RestAddress, Timeout = TimeSpan.FromMinutes(10) };
                        var clock = Stopwatch.StartNew();
                        using var response = await http.PostAsJsonAsync($"/api/{service}/imports", body, cancellationToken);
                        var text = await response.Content.ReadAsStringAsync(cancellationToken);
                        seconds.Add(clock.Elapsed.TotalSeconds);
                        if (!response.IsSuccessStatusCode)
                        {
                            throw new InvalidOperationException($"{service} import into {store} failed: {(int)response.StatusCode} {text}");
                        }
                    }

                    var median = Statistics.Median(seconds);
                    var key = $"store={store},service={service},source={source}";
                    context.Add(key, "import_seconds", median, "s");
                    context.Add(key, "import_rate", rows / median, "rows/s");
                    context.Add(key, "ratio_to_parse", median / parse, "ratio");
                    table.Add([store, $"{service} `{source}`", rows.ToString("N0", System.Globalization.CultureInfo.InvariantCulture),
                        ExperimentContext.Format(median), ExperimentContext.Format(rows / median / 1000) + " k", ExperimentContext.Format(parse), ExperimentContext.Format(median / parse, 2)]);
                }
            }
        }
        finally
        {
            if (postgres is not null)
            {
                await postgres.DisposeAsync();
            }
        }

        context.Section("Imports into each store",
            "`POST /api/census/imports` and `POST /api/chem/imports` on a service process with an empty store, timed by the client " +
            "until the dataset is committed (census: points, population weights, GEOID labels; chem: compounds with SMILES plus " +
            "one binary dataset per fingerprint type, ECFP4-1024 and MACCS-167). PostgreSQL takes points by binary COPY. " +
            "`parse` is reading the same file in this process, the floor for any import, measured in the same run." +
            (postgresError is null ? "" : $" PostgreSQL could not be started here ({postgresError}); only SQLite was measured."));
        context.Table(["store", "import", "rows", "seconds", "rows/s", "parse s", "÷ parse"], table);
    }
}
