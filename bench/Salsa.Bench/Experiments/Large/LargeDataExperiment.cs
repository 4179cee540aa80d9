using System.Diagnostics;
using System.Globalization;
using Salsa.Bench.Harness;
using Salsa.Clustering.Annealing;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;
using Salsa.Grid.Partitions;
using Salsa.Testing;

namespace Salsa.Bench.Experiments.Large;

/// <summary>
/// Data past a machine's comfort: census-like synthetic points (<see cref="CensusLikePoints"/>,
/// 50 million; 500,000 with --quick) streamed into SQLite and into PostgreSQL by the generator as a
/// process of its own (its time and peak memory), then loaded by the partitions of silo processes
/// from PostgreSQL — each partition its own rows — (the silos' memory per point) and one DA E-step
/// and one k-means Lloyd pass at K = 100 on 1 and on 3 silos and whole DA and k-means jobs, their
/// sums and results against the same grid in this process, bit for bit; silos joining and leaving
/// the grid of 10 million points under passes; and the model of 8, 32 and 128 machines of 16 cores
/// fitted on them.
/// </summary>
public sealed class LargeDataExperiment : IExperiment
{
    private const int Clusters = 100;
    private const int Seed = 1;

    public string Name => "large";

    public string Description => "Census-like synthetic data (50M weighted points; --quick 500k): streamed import into SQLite and PostgreSQL (seconds, importer peak memory), silo memory per point, DA and k-means passes and whole jobs at K = 100 on 1 and 3 silos, bits against one process; a silo joining and one leaving under passes at 10M points; the model of 8, 32 and 128 machines fitted on them.";

    public async Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var points = context.Quick ? 500_000 : 50_000_000;
        var repeats = context.Quick ? 2 : 3;
        var pointsCase = string.Create(CultureInfo.InvariantCulture, $"points={points}");
        using var folder = new TemporaryDirectory("salsa-large-");
        await using var postgres = await PostgresServer.StartAsync(cancellationToken);
        var connectionString = await postgres.CreateDatabaseAsync("large", cancellationToken);

        // 1. The generator streaming into each store, as a process of its own.
        var imports = new Dictionary<string, Import>();
        foreach (var (store, target) in new[] { ("sqlite", new[] { "--sqlite", folder.Combine("large.db") }), ("postgres", new[] { "--postgres", connectionString }) })
        {
            var import = await GenerateAsync(points, target, cancellationToken);
            imports[store] = import;
            var @case = $"store={store},{pointsCase}";
            context.Add(@case, "import_seconds", import.Seconds, "s");
            context.Add(@case, "import_points_per_second", import.Points / import.Seconds, "points/s");
            context.Add(@case, "importer_peak_rss_mb", import.PeakRssBytes / 1e6, "MB");
            context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"  import into {store}: {import.Points:N0} points in {import.Seconds:F1} s ({import.Points / import.Seconds:N0}/s), importer peak RSS {import.PeakRssBytes / 1e6:F0} MB"));
        }

        // What PostgreSQL would otherwise do by itself a minute later, in the middle of the timing:
        // vacuum the freshly imported rows (hint bits, the visibility map) and analyze them.
        await VacuumAsync(connectionString, context, cancellationToken);

        // 2. The same points in this process, on the grid the silos will hold: one pass of each kind,
        // then the whole jobs whose bits the silos must reproduce.
        var generator = CensusLikePoints.Of(points, Seed);
        var data = generator.All();
        var partitions = new Salsa.Hosting.Clustering.Grid.PartitionLayout().PartitionsFor(points);
        var passes = new (string Algorithm, PartitionPass Pass)[] { ("annealing", GridExperiment.EStep(data, Clusters)), ("kmeans", GridExperiment.Lloyd(data, Clusters)) };
        var reference = new Dictionary<string, (double[] Sums, double Seconds)>();
        var annealing = AnnealingJob(context.Quick);
        var kmeans = new KMeansOptions { Clusters = Clusters, Restarts = 1, MaxIterations = context.Quick ? 5 : 10, Seed = 3 };
        AnnealingResult annealingReference;
        KMeansResult kmeansReference;
        // Each job twice per side: a process's first job of a kind compiles its code (the JIT), the next does not.
        var jobs = new Dictionary<(string Algorithm, int Silos), (double First, double Next)>();
        using (var grid = new LocalPartitions(data, partitions, new ParallelismOptions()))
        {
            foreach (var (algorithm, pass) in passes)
            {
                var (sums, seconds) = await TimePassesAsync(() => Task.FromResult(grid.Reduce(pass, cancellationToken)), repeats, _ => { });
                reference[algorithm] = (sums, seconds);
                context.Add($"algorithm={algorithm},k={Clusters},{pointsCase},partitions={partitions},silos=0", "seconds_per_pass", seconds, "s");
            }

            (annealingReference, jobs[("annealing", 0)]) = await TwiceAsync(() => Task.FromResult(DeterministicAnnealing.Run(grid, annealing, cancellationToken: cancellationToken)), !context.Quick);
            (kmeansReference, jobs[("kmeans", 0)]) = await TwiceAsync(() => Task.FromResult(WeightedKMeans.Run(grid, kmeans, cancellationToken: cancellationToken)), !context.Quick);
        }

        data = null;
        GC.Collect();
        context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"  in this process: DA pass {reference["annealing"].Seconds:F2} s, Lloyd pass {reference["kmeans"].Seconds:F2} s; DA job {jobs[("annealing", 0)].Next:F1} s ({annealingReference.Clusters} clusters, {annealingReference.Iterations} passes), k-means job {jobs[("kmeans", 0)].Next:F1} s"));

        // 3. Silo processes loading the PostgreSQL copy, partition by partition, computing the passes and running the jobs.
        var datasetId = imports["postgres"].Id;
        var messaging = new Dictionary<int, double>();
        foreach (var silos in new[] { 1, 3 })
        {
            var ranks = ProcessCluster.RanksSharing(silos);
            await using var cluster = await ProcessCluster.SharingCoresAsync(connectionString, silos, cancellationToken);
            context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  {silos} silo(s) quiet {cluster.SettledAfter.TotalSeconds:F0} s after they started"));
            var idle = cluster.Silos.Sum(s => ProcessMemory.ResidentBytes(s.ProcessId));
            var loadClock = Stopwatch.StartNew();
            var grid = await Task.Run(() => GrainPartitions.Open(cluster.Grains, datasetId, partitions, TimeSpan.FromMinutes(5), cancellationToken), cancellationToken);
            var loadSeconds = loadClock.Elapsed.TotalSeconds;
            var loaded = cluster.Silos.Sum(s => ProcessMemory.ResidentBytes(s.ProcessId)) - idle;
            await cluster.QuietAsync(cancellationToken);
            var siloCase = $"{pointsCase},partitions={partitions},silos={silos},ranks_per_silo={ranks}";
            context.Add(siloCase, "load_seconds", loadSeconds, "s");
            context.Add(siloCase, "silo_bytes_per_point_loaded", (double)loaded / points, "B");
            var identical = true;
            foreach (var (algorithm, pass) in passes)
            {
                var (_, seconds) = await TimePassesAsync(() => Task.Run(() => grid.Reduce(pass, cancellationToken), cancellationToken), repeats,
                    sums => identical &= sums.AsSpan().SequenceEqual(reference[algorithm].Sums));
                var passCase = $"algorithm={algorithm},k={Clusters},{siloCase}";
                context.Add(passCase, "seconds_per_pass", seconds, "s");
                context.Add(passCase, "ratio_to_in_process", seconds / reference[algorithm].Seconds, "×");
            }

            // Resident memory the silos gained by holding the points and computing on them.
            var held = cluster.Silos.Sum(s => ProcessMemory.ResidentBytes(s.ProcessId)) - idle;
            context.Add(siloCase, "silo_bytes_per_point", (double)held / points, "B");

            // The pass's messaging without its compute: a pass sent to every silo at once, asking for no partitions (with up to four silos, the fan-in tree's one level).
            messaging[silos] = await EmptyPassMicrosecondsAsync(cluster.Grains, grid.Silos, passes[0].Pass, cancellationToken);
            context.Add(siloCase, "messaging_us", messaging[silos], "µs");

            // The whole jobs, their coordinator on a silo, start to result as the client sees it.
            (var annealingResult, jobs[("annealing", silos)]) = await TwiceAsync(async () =>
            {
                var (_, result) = await ClusterJobs.AnnealAsync(cluster.Grains, datasetId, partitions, annealing, cancellationToken);
                identical &= ClusterJobs.SameBits(annealingReference, result);
                return result;
            }, !context.Quick);
            (var kmeansResult, jobs[("kmeans", silos)]) = await TwiceAsync(async () =>
            {
                var (_, result) = await ClusterJobs.KMeansAsync(cluster.Grains, datasetId, partitions, kmeans, cancellationToken);
                identical &= ClusterJobs.SameBits(kmeansReference, result);
                return result;
            }, !context.Quick);
            foreach (var algorithm in new[] { "annealing", "kmeans" })
            {
                var jobCase = $"algorithm={algorithm},job=whole,k={Clusters},{siloCase}";
                ClusterJobs.AddJobRows(context, jobCase, jobs[(algorithm, silos)], jobs[(algorithm, 0)]);
            }

            context.Add(siloCase, "identical_to_single_node", identical ? 1 : 0, "bool");
            context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"  silos={silos}: loaded in {loadSeconds:F1} s, {(double)held / points:F1} B per point resident, DA job {jobs[("annealing", silos)].Next:F1} s, k-means job {jobs[("kmeans", silos)].Next:F1} s, identical {identical}"));
        }

        foreach (var algorithm in new[] { "annealing", "kmeans" })
        {
            ClusterJobs.AddJobRows(context, $"algorithm={algorithm},job=whole,k={Clusters},{pointsCase},partitions={partitions},silos=0", jobs[(algorithm, 0)], null);
        }

        Report(context, points, partitions, annealing, annealingReference, kmeans);
        await ElasticAsync(context, connectionString, points, datasetId, cancellationToken);
        Model(context, points, reference["annealing"].Seconds, messaging);
    }

    /// <summary>Points of the elastic grid's run: the size the issue of joining and leaving names (the quick run's own).</summary>
    private static int ElasticPoints(bool quick) => quick ? 500_000 : 10_000_000;

    /// <summary>
    /// A silo joining two and one of three leaving under a stream of DA passes on
    /// <see cref="ElasticPoints"/> points (imported for it unless the run's data is that size), each
    /// pass against the same grid in this process.
    /// </summary>
    internal static async Task ElasticAsync(ExperimentContext context, string connectionString, int points, Guid datasetId, CancellationToken cancellationToken)
    {
        var elasticPoints = ElasticPoints(context.Quick);
        if (elasticPoints != points)
        {
            datasetId = (await GenerateAsync(elasticPoints, ["--postgres", connectionString], cancellationToken)).Id;
            await VacuumAsync(connectionString, context, cancellationToken);
        }

        var data = CensusLikePoints.Of(elasticPoints, Seed).All();
        var partitions = new Salsa.Hosting.Clustering.Grid.PartitionLayout().PartitionsFor(elasticPoints);
        var pass = GridExperiment.EStep(data, Clusters);
        double[] reference;
        using (var grid = new LocalPartitions(data, partitions, new ParallelismOptions()))
        {
            reference = grid.Reduce(pass, cancellationToken);
        }

        await ElasticGridRun.RunAsync(context, connectionString, datasetId, partitions, pass, reference,
            string.Create(CultureInfo.InvariantCulture, $"points={elasticPoints},k={Clusters},partitions={partitions}"),
            string.Create(CultureInfo.InvariantCulture, $"{elasticPoints:N0} census-like points (seed {Seed}), DA E-steps at K = {Clusters},"), rounds: context.Quick ? 1 : 3, cancellationToken);
    }

    /// <summary>
    /// A DA job at Kmax 100 whose schedule is cut short so that three sides of it fit a benchmark at
    /// 50 million points: a few temperatures of a few passes each, one split-merge round, a short
    /// refinement. Every pass is a whole E-step over the data, as in a full schedule.
    /// </summary>
    private static AnnealingOptions AnnealingJob(bool quick) => new()
    {
        MaxClusters = Clusters,
        CoolingFactor = 0.8,
        MaxTemperatures = quick ? 6 : 4,
        MaxIterationsPerTemperature = quick ? 4 : 3,
        SplitMergeAttempts = 1,
        FinalRefinementIterations = quick ? 4 : 2,
    };

    /// <summary>
    /// Runs a job twice — the first's result, and both times in seconds — or, when it is long
    /// (<paramref name="once"/>: the full run's 50 million points, where a job's minute dwarfs the
    /// second the JIT takes), once, its time standing for both.
    /// </summary>
    private static async Task<(T Result, (double First, double Next) Seconds)> TwiceAsync<T>(Func<Task<T>> job, bool once)
    {
        var clock = Stopwatch.StartNew();
        var result = await job();
        var first = clock.Elapsed.TotalSeconds;
        if (once)
        {
            return (result, (first, first));
        }

        clock.Restart();
        await job();
        return (result, (first, clock.Elapsed.TotalSeconds));
    }

    /// <summary>Median seconds of <paramref name="repeats"/> passes after a warm-up of 3 passes and 5 s (the silos' JIT promoted, as in <c>grid</c>); every pass's sums given to <paramref name="check"/>.</summary>
    private static async Task<(double[] Sums, double Seconds)> TimePassesAsync(Func<Task<double[]>> pass, int repeats, Action<double[]> check)
    {
        var times = new List<double>();
        double[] sums = [];
        for (var warm = new WarmUp(3, TimeSpan.FromSeconds(5)); times.Count < repeats;)
        {
            var clock = Stopwatch.StartNew();
            sums = await pass();
            var seconds = clock.Elapsed.TotalSeconds;
            check(sums);
            if (warm.Over())
            {
                times.Add(seconds);
            }
        }

        return (sums, Statistics.Median(times));
    }

    /// <summary>The median round trip of a pass sent to every silo at once asking for no partitions: what a pass costs beside its compute.</summary>
    private static async Task<double> EmptyPassMicrosecondsAsync(IGrainFactory grains, string[] silos, PartitionPass pass, CancellationToken cancellationToken)
    {
        var times = new List<double>();
        for (var warm = new WarmUp(50, TimeSpan.FromSeconds(2)); times.Count < 200;)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var clock = Stopwatch.StartNew();
            await Task.WhenAll(silos.Select(s => grains.GetGrain<ISiloPassGrain>(s).RunAsync(pass, new SiloPassPlan(s, Guid.Empty, 1, [], [], TimeSpan.FromMinutes(1)))));
            if (warm.Over())
            {
                times.Add(clock.Elapsed.TotalMicroseconds);
            }
        }

        return Statistics.Median(times);
    }

    private static void Report(ExperimentContext context, int points, int partitions, AnnealingOptions annealing, AnnealingResult annealingResult, KMeansOptions kmeans)
    {
        context.Section("Data past a machine's comfort", string.Create(CultureInfo.InvariantCulture,
            $"{points:N0} census-like points (`CensusLikePoints`: the populated national block groups split, jitter {CensusLikePoints.JitterKm} km, seed {Seed}), {partitions} partitions, K = {Clusters}. ") +
            "The generator runs as a process of its own (`Salsa.Bench --generate`) and streams parts of 65,536 points into the store " +
            "(`IDataStore.ImportDatasetAsync`); its peak resident memory is the process's VmHWM. Silos are processes on this machine sharing its cores " +
            "(so 3 silos measure the overhead of spreading, not a speed-up); a silo's partitions read their own row ranges from PostgreSQL. " +
            "Memory per point is the silos' resident-set growth from idle to holding the partitions (`_loaded`: right after loading; without: after the passes and jobs' first passes). " +
            "Several silos on this machine compute on a share of its cores each (`Cluster:Ranks` = cores ÷ silos). Timing starts once the silos are quiet (none using more than 5 % of a core for a second: a fresh silo's JIT recompiles in the background for seconds), after they have loaded, and every side's passes after a warm-up of 3 passes and 5 s.");
        string Value(string @case, string metric, string format) =>
            context.Rows.FirstOrDefault(r => r.Case == @case && r.Metric == metric)?.Value.ToString(format, CultureInfo.InvariantCulture) ?? "–";
        var pointsCase = string.Create(CultureInfo.InvariantCulture, $"points={points}");
        context.Table(["store", "import, s", "points per second", "importer peak memory, MB"],
            new[] { "sqlite", "postgres" }.Select(store => (IReadOnlyList<string>)[
                store, Value($"store={store},{pointsCase}", "import_seconds", "F1"), Value($"store={store},{pointsCase}", "import_points_per_second", "N0"), Value($"store={store},{pointsCase}", "importer_peak_rss_mb", "F0")]));
        context.Paragraph(string.Create(CultureInfo.InvariantCulture,
            $"Passes and whole jobs. The DA job runs at Kmax {Clusters} on a schedule cut short to fit three sides at this size (cooling {annealing.CoolingFactor}, {annealing.MaxTemperatures} temperatures of at most {annealing.MaxIterationsPerTemperature} passes, " +
            $"{annealing.SplitMergeAttempts} split-merge round, {annealing.FinalRefinementIterations} refinement passes: {annealingResult.Clusters} clusters, {annealingResult.Iterations} passes); the k-means job is one k-means++ seeding and {kmeans.MaxIterations} Lloyd passes at K = {kmeans.Clusters}. " +
            $"{(context.Quick ? "Each job runs twice per side, the next after the first (which compiles the job's code in a fresh process): the table gives the next, the first's ratio in brackets." : "Each job runs once per side (at this size the JIT's second is lost in the job's minute).")} Silos = 0 is the same grid in the benchmark's process; **identical** compares every pass's sums and both jobs' centres, assignments and costs bit for bit."));
        context.Table(["silos", "load, s", "B per point (loaded / after)", "DA pass, s", "ratio", "Lloyd pass, s", "ratio", "DA job, s", "ratio (first job)", "k-means job, s", "ratio (first job)", "messaging per pass, µs", "identical"],
            new[] { 0, 1, 3 }.Select(silos =>
            {
                var siloCase = silos == 0 ? $"{pointsCase},partitions={partitions},silos=0" : $"{pointsCase},partitions={partitions},silos={silos},ranks_per_silo={ProcessCluster.RanksSharing(silos)}";
                string Pass(string algorithm, string metric) => Value($"algorithm={algorithm},k={Clusters},{siloCase}", metric, metric == "seconds_per_pass" ? "F3" : "F2");
                string Job(string algorithm, string metric) => Value($"algorithm={algorithm},job=whole,k={Clusters},{siloCase}", metric, metric == "seconds_per_job" ? "F1" : "F2");
                return (IReadOnlyList<string>)[
                    silos.ToString(CultureInfo.InvariantCulture),
                    Value(siloCase, "load_seconds", "F1"),
                    silos == 0 ? "–" : $"{Value(siloCase, "silo_bytes_per_point_loaded", "F0")} / {Value(siloCase, "silo_bytes_per_point", "F0")}",
                    Pass("annealing", "seconds_per_pass"), silos == 0 ? "1.00" : Pass("annealing", "ratio_to_in_process"),
                    Pass("kmeans", "seconds_per_pass"), silos == 0 ? "1.00" : Pass("kmeans", "ratio_to_in_process"),
                    Job("annealing", "seconds_per_job"), silos == 0 ? "1.00" : $"{Job("annealing", "ratio_to_in_process")} ({Job("annealing", "ratio_to_in_process_first")})",
                    Job("kmeans", "seconds_per_job"), silos == 0 ? "1.00" : $"{Job("kmeans", "ratio_to_in_process")} ({Job("kmeans", "ratio_to_in_process_first")})",
                    Value(siloCase, "messaging_us", "F0"),
                    silos == 0 ? "reference" : Value(siloCase, "identical_to_single_node", "F0") == "1" ? "yes" : "no"];
            }));
    }

    /// <summary>
    /// The machine level on P machines of 16 cores, fitted on this run: a DA pass's compute per point
    /// and core from the pass in this process at this size; a level of the fan-in tree costed two ways
    /// from the empty pass (one silo called; three called at once, sharing two cores), and a LAN's round
    /// trip per level this machine cannot make (no netem).
    /// </summary>
    private static void Model(ExperimentContext context, int points, double passSeconds, Dictionary<int, double> messaging)
    {
        var perPointCoreUs = passSeconds * 1e6 * Environment.ProcessorCount / points;
        context.Section("Model: 8, 32 and 128 machines of 16 cores", string.Create(CultureInfo.InvariantCulture,
            $"Fitted on this run: a DA E-step at K = {Clusters} costs c = {perPointCoreUs * 1000:F1} ns per point per core (the pass in this process at {points:N0} points, {Environment.ProcessorCount} cores). " +
            $"A pass's messaging goes through the fan-in tree of L(P) = ⌈log₄ P⌉ levels (2 at 8 machines, 3 at 32, 4 at 128); a level is a silo calling at most four below it and merging their answers, costed two ways from the empty pass of this run: " +
            $"**three at once** — m₃ = {messaging[3]:F0} µs, the coordinator calling three silo processes that share this machine's two cores (contention included: an upper bound for a level of four on machines of their own) — " +
            $"and **one call** — m₁ = {messaging[1]:F0} µs, one silo process called (a level's floor: one round trip and a turn). " +
            $"Each level adds a LAN round trip of {GridModel.RoundTripUs:F0} µs, an assumption: this machine's kernel has no netem to measure it. T(P) = c·n/(16P) + L(P)·(m + RTT); efficiency = (c·n/16) / (P·T(P)) against one machine of 16 cores without messaging. " +
            $"What it assumes: partitions spread evenly (a grid of at least 16P partitions: `Cluster:MaxPartitions` raised past 64), compute shrinking with cores as it does on this machine's two, the sums of a pass ({Clusters * 3} doubles) small beside a LAN's bandwidth. " +
            $"What this 2-core machine cannot show: a speed-up from more machines, memory bandwidth shared by 16 cores, and a real network's round trip and bandwidth. `grid.md` fits the same model on 1 to 16 silo processes."));
        GridModel.Add(context, perPointCoreUs,
        [
            new("three-at-once", "level as three at once", machines => GridExperiment.TreeLevels(machines) * (messaging[3] + GridModel.RoundTripUs)),
            new("one-call", "level as one call", machines => GridExperiment.TreeLevels(machines) * (messaging[1] + GridModel.RoundTripUs)),
        ]);
    }

    private static async Task VacuumAsync(string connectionString, ExperimentContext context, CancellationToken cancellationToken)
    {
        var clock = Stopwatch.StartNew();
        await using var connection = new Npgsql.NpgsqlConnection(connectionString);
        await connection.OpenAsync(cancellationToken);
        await using var vacuum = new Npgsql.NpgsqlCommand("VACUUM (FREEZE, ANALYZE)", connection) { CommandTimeout = 0 };
        await vacuum.ExecuteNonQueryAsync(cancellationToken);
        context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  VACUUM (FREEZE, ANALYZE) after the import: {clock.Elapsed.TotalSeconds:F0} s"));
    }

    private sealed record Import(Guid Id, int Points, double Seconds, long PeakRssBytes);

    private static Task<Import> GenerateAsync(int points, string[] target, CancellationToken cancellationToken) => Task.Run(() =>
    {
        // Through the dotnet host when this runs as `dotnet Salsa.Bench.dll`, else its own apphost.
        var host = Path.GetFileNameWithoutExtension(Environment.ProcessPath!) == "dotnet" ? [typeof(LargeDataExperiment).Assembly.Location] : Array.Empty<string>();
        var root = Peers.RunJson(Environment.ProcessPath!,
            [.. host, "--generate", "--points", points.ToString(CultureInfo.InvariantCulture), "--seed", Seed.ToString(CultureInfo.InvariantCulture), .. target],
            TimeSpan.FromMinutes(20));
        return new Import(root.GetProperty("id").GetGuid(), root.GetProperty("points").GetInt32(), root.GetProperty("seconds").GetDouble(), root.GetProperty("peakRssBytes").GetInt64());
    }, cancellationToken);
}
