using System.Diagnostics;
using System.Net.Http.Json;
using System.Net.Sockets;
using Grpc.Core;
using Grpc.Health.V1;
using Grpc.Net.Client;
using Salsa.Bench.Harness;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.DataFiles;
using Salsa.Hosting.Host;
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
        var grpcSocket = directory.Combine("grpc.sock");
        var bareSocket = directory.Combine("bare.sock");
        await using var service = await ServiceProcess.StartAsync("annealing", new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort()),
            ["Store:SqlitePath=" + directory.Combine("salsa.db"), .. UnixEndpoint(grpcSocket)], cancellationToken, unixEcho: directory.Combine("echo.sock"));
        await using var bare = await ServiceProcess.StartAsync(BareGrpc.Name, new ServicePorts(ServicePorts.NextFreeLoopbackPort(), ServicePorts.NextFreeLoopbackPort()),
            UnixEndpoint(bareSocket), cancellationToken);
        var jobId = await FinishedJobAsync(service, cancellationToken);

        int[] callerCounts = context.Quick ? [64] : [1, 16, 64, 256]; // quick: every case must run, in no more time than before it had ten
        var window = context.Quick ? TimeSpan.FromSeconds(1) : TimeSpan.FromSeconds(3);
        var warmup = context.Quick ? TimeSpan.FromSeconds(0.5) : TimeSpan.FromSeconds(1);
        var repeats = context.Quick ? 1 : 3;

        // Channels as the gateway makes them (ServiceDirectory): one per service, HTTP/2 connections
        // added as the streams in flight pass the server's limit per connection.
        using var grpc = ServiceChannel(service.Ports.GrpcAddress, unixSocket: null);
        using var grpcUnix = ServiceChannel(service.Ports.GrpcAddress, grpcSocket);
        using var bareTcp = ServiceChannel(bare.Ports.GrpcAddress, unixSocket: null);
        using var bareUnix = ServiceChannel(bare.Ports.GrpcAddress, bareSocket);
        using var rest = new HttpClient(new SocketsHttpHandler { UseProxy = false, PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan }) { BaseAddress = service.Ports.RestAddress };
        var healthRequest = new HealthCheckRequest();
        var jobRequest = new JobRef { JobId = jobId };
        Func<Caller> Health(GrpcChannel channel)
        {
            var client = new Health.HealthClient(channel);
            return () => async () => await client.CheckAsync(healthRequest);
        }

        Func<Caller> Job(GrpcChannel channel)
        {
            var client = new JobsClient(channel);
            return () => async () => await client.GetAsync(jobRequest);
        }

        // Key, table label, and the caller: the TCP floor first (the ratios' denominator), then the Unix-socket floor.
        var cases = new (string Key, string Protocol, string Op, Func<Caller> Create)[]
        {
            ("protocol=tcp,op=echo", "tcp", "echo", () => EchoCaller(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, service.EchoPort))),
            ("protocol=uds,op=echo", "unix socket", "echo", () => EchoCaller(new UnixDomainSocketEndPoint(directory.Combine("echo.sock")))),
            ("protocol=grpc,stack=grpc-dotnet,op=health", "grpc", "health", Health(grpc)),
            ("protocol=grpc,stack=grpc-dotnet,transport=uds,op=health", "grpc, unix socket", "health", Health(grpcUnix)),
            ("protocol=grpc,stack=bare,op=health", "grpc, bare library", "health", Health(bareTcp)),
            ("protocol=grpc,stack=bare,transport=uds,op=health", "grpc, bare library, unix socket", "health", Health(bareUnix)),
            ("protocol=rest,op=health", "rest", "health", () => async () => (await rest.GetAsync("/alive", cancellationToken)).Dispose()),
            ("protocol=grpc,stack=grpc-dotnet,op=job", "grpc", "job", Job(grpc)),
            ("protocol=grpc,stack=grpc-dotnet,transport=uds,op=job", "grpc, unix socket", "job", Job(grpcUnix)),
            ("protocol=rest,op=job", "rest", "job", () => async () =>
            {
                using var response = await rest.GetAsync($"/api/jobs/{jobId}", cancellationToken);
                response.EnsureSuccessStatusCode();
                await response.Content.ReadAsByteArrayAsync(cancellationToken);
            }),
        };

        // Tiered JIT: every path on both sides must reach its optimised tier before anything is
        // measured (a one-second warm-up measured half the steady rate).
        var prime = context.Quick ? TimeSpan.FromSeconds(1) : TimeSpan.FromSeconds(6);
        foreach (var c in cases)
        {
            await LoadDriver.RunAsync(64, prime, TimeSpan.FromMilliseconds(100), c.Create, cancellationToken);
        }

        var table = new List<IReadOnlyList<string>>();
        foreach (var callers in callerCounts)
        {
            // Repeats go round every case in turn, so the VM's slow phases fall on all of them alike.
            var runs = cases.Select(_ => new List<LoadResult>()).ToArray();
            for (var r = 0; r < repeats; r++)
            {
                for (var c = 0; c < cases.Length; c++)
                {
                    runs[c].Add(await LoadDriver.RunAsync(callers, warmup, window, cases[c].Create, cancellationToken));
                }
            }

            var floor = Statistics.Median([.. runs[0].Select(x => x.RequestsPerSecond)]);
            for (var c = 0; c < cases.Length; c++)
            {
                var (caseKey, protocol, op, _) = cases[c];
                var rps = Statistics.Median([.. runs[c].Select(x => x.RequestsPerSecond)]);
                var p50 = Statistics.Median([.. runs[c].Select(x => x.P50Microseconds)]);
                var p99 = Statistics.Median([.. runs[c].Select(x => x.P99Microseconds)]);
                var key = $"{caseKey},callers={callers}";
                context.Add(key, "rps", rps, "1/s");
                context.Add(key, "p50_us", p50, "us");
                context.Add(key, "p99_us", p99, "us");
                var isFloor = c == 0;
                if (!isFloor)
                {
                    context.Add(key, "ratio_to_tcp_floor", rps / floor, "ratio");
                }

                if (op != "echo")
                {
                    context.Add(key, "ratio_to_paper_dss", rps / PaperDss, "ratio");
                }

                var at64 = callers == 256 ? context.Value($"{caseKey},callers=64", "rps") : double.NaN;
                if (!double.IsNaN(at64))
                {
                    context.Add(key, "ratio_to_64_callers", rps / at64, "ratio");
                }

                table.Add([protocol, op, callers.ToString(System.Globalization.CultureInfo.InvariantCulture), ExperimentContext.Format(rps, 4), ExperimentContext.Format(p50), ExperimentContext.Format(p99),
                    isFloor ? "1" : ExperimentContext.Format(rps / floor, 2), op == "echo" ? "–" : ExperimentContext.Format(rps / PaperDss, 2),
                    double.IsNaN(at64) ? "–" : ExperimentContext.Format(rps / at64, 2)]);
            }
        }

        context.Section("Request-response between two processes",
            "The client is this process; the service (the real annealing service host: Kestrel, middleware, telemetry, " +
            "Server-Timing, authentication and rate limits) is a second process on loopback. `health` is grpc.health.v1 Check / REST `GET /alive`; `job` is " +
            "Jobs.Get / `GET /api/jobs/{id}` of a finished job, read from the SQLite store on every call. `tcp` is a raw " +
            "32-byte echo between the same two processes, one connection per caller: the floor set by the kernel and the " +
            "runtime, measured in the same run; `unix socket` is the same echo over a Unix-domain socket. `grpc, unix socket` calls the same service " +
            "on its Kestrel Unix-domain-socket endpoint. `grpc, bare library` is a third process with grpc-dotnet and nothing of ours " +
            "(Kestrel, `AddGrpc` and a health service answering SERVING from a field: no middleware, telemetry, security, interceptor " +
            "or health checks), the floor of the library itself. The gRPC client is a channel per service made as the gateway makes it " +
            "(`SocketsHttpHandler.EnableMultipleHttp2Connections`: a second HTTP/2 connection once a first has Kestrel's 100 streams in flight). " +
            "`callers` = requests in flight. Every case is first run until the JIT has " +
            "optimised both sides; then, per caller count, the repeats go round every case in turn, each warming up before its measured window. Rates are medians of the repeats; " +
            $"p50/p99 are per-request latencies. `256 ÷ 64` is a case's rate at 256 in flight over its rate at 64. Paper 001 fig. 13: DSS {PaperDss - 2_500:N0}–{PaperDss + 2_500:N0}/s on a 4-core PC, Axis2 ≈ {PaperAxis2:N0}/s. " +
            "Target: ≥ 50,000 gRPC request-responses per second on 2 cores (client and server share them); ≥ 1.0× the TCP floor at 64 in flight. " +
            "Where the time goes (perf, 2026-11-29): [docs/services.md](../../docs/services.md#services-on-one-host).");
        context.Table(["protocol", "op", "callers", "requests/s", "p50 µs", "p99 µs", "÷ tcp floor", "÷ paper DSS", "256 ÷ 64"], table);
        BeforeAndAfter(context, callerCounts);
        LibraryDefaults(context, callerCounts);
    }

    /// <summary>Kestrel settings adding a gRPC (HTTP/2) endpoint on a Unix-domain socket.</summary>
    private static string[] UnixEndpoint(string path) =>
        [$"Kestrel:Endpoints:GrpcUnix:Url=http://unix:{path}", "Kestrel:Endpoints:GrpcUnix:Protocols=Http2"];

    /// <summary>A channel like the gateway's; over <paramref name="unixSocket"/> when given (the address then only names the authority).</summary>
    private static GrpcChannel ServiceChannel(Uri address, string? unixSocket)
    {
        var handler = new SocketsHttpHandler { EnableMultipleHttp2Connections = true, UseProxy = false };
        if (unixSocket is not null)
        {
            var endpoint = new UnixDomainSocketEndPoint(unixSocket);
            handler.ConnectCallback = async (_, cancellationToken) =>
            {
                var socket = new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified);
                try
                {
                    await socket.ConnectAsync(endpoint, cancellationToken);
                    return new NetworkStream(socket, ownsSocket: true);
                }
                catch
                {
                    socket.Dispose();
                    throw;
                }
            };
        }

        return GrpcChannel.ForAddress(address, new GrpcChannelOptions { HttpHandler = handler });
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

    /// <summary>
    /// This run's gRPC figures beside the last full run made with the library's defaults
    /// (<c>services.library-defaults.json</c>, 2026-11-25: one HTTP/2 connection per channel, cases run
    /// one after another), each also ÷ its own run's TCP floor, since the VM's speed varies by day.
    /// </summary>
    private static void LibraryDefaults(ExperimentContext context, int[] callerCounts)
    {
        var path = context.FilePath(".library-defaults.json");
        if (!File.Exists(path))
        {
            return;
        }

        var before = System.Text.Json.JsonSerializer.Deserialize<List<ResultRow>>(File.ReadAllText(path)) ?? [];
        double Before(string @case, string metric) => before.LastOrDefault(r => r.Case == @case && r.Metric == metric)?.Value ?? double.NaN;
        var table = new List<IReadOnlyList<string>>();
        foreach (var op in new[] { "health", "job" })
        {
            foreach (var callers in callerCounts)
            {
                var key = $"protocol=grpc,stack=grpc-dotnet,op={op},callers={callers}";
                var then = Before(key, "rps");
                var now = context.Value(key, "rps");
                var thenAt64 = Before($"protocol=grpc,stack=grpc-dotnet,op={op},callers=64", "rps");
                var nowAt64 = context.Value($"protocol=grpc,stack=grpc-dotnet,op={op},callers=64", "rps");
                context.Add($"{key},stage=library-defaults", "rps", then, "1/s");
                context.Add($"{key},stage=library-defaults", "ratio_to_tcp_floor", Before(key, "ratio_to_tcp_floor"), "ratio");
                table.Add([op, callers.ToString(System.Globalization.CultureInfo.InvariantCulture),
                    ExperimentContext.Format(then, 4), ExperimentContext.Format(Before(key, "ratio_to_tcp_floor"), 2), callers == 256 ? ExperimentContext.Format(then / thenAt64, 2) : "–",
                    ExperimentContext.Format(now, 4), ExperimentContext.Format(context.Value(key, "ratio_to_tcp_floor"), 2), callers == 256 ? ExperimentContext.Format(now / nowAt64, 2) : "–"]);
            }
        }

        context.Section("gRPC before and after: the library's defaults",
            "`then` is the last full run of this experiment with the library's defaults (`services.library-defaults.json`, 2026-11-25 14:22 UTC, " +
            "a 2-vCPU VM like this one but on an AMD EPYC, so compare the ratios to each run's own TCP floor, not the rates): the benchmark's client on `GrpcChannel.ForAddress` as it comes, one HTTP/2 connection, so past Kestrel's " +
            "100 streams per connection the calls queued in the client; each case ran its repeats back to back. `now` is this run. Each is also given ÷ its own run's TCP floor.");
        context.Table(["op", "callers", "then requests/s", "then ÷ tcp floor", "then 256 ÷ 64", "now requests/s", "now ÷ tcp floor", "now 256 ÷ 64"], table);
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

    private static Caller EchoCaller(System.Net.EndPoint endpoint)
    {
        var socket = endpoint is UnixDomainSocketEndPoint
            ? new Socket(AddressFamily.Unix, SocketType.Stream, ProtocolType.Unspecified)
            : new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        socket.Connect(endpoint);
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
