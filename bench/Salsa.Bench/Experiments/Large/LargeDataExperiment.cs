using System.Diagnostics;
using System.Globalization;
using Salsa.Bench.Harness;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;
using Salsa.Grid.Partitions;
using Salsa.Testing;

namespace Salsa.Bench.Experiments.Large;

/// <summary>
/// Data past a machine's comfort: census-like synthetic points (<see cref="CensusLikePoints"/>,
/// 10 million; 500,000 with --quick) streamed into SQLite and into PostgreSQL by the generator as a
/// process of its own (its time and peak memory), then loaded by the partitions of silo processes
/// from PostgreSQL — each partition its own rows — (the silos' memory per point) and one DA E-step
/// and one k-means Lloyd pass at K = 100 on 1 and on 3 silos, their sums against the same grid in
/// this process, bit for bit.
/// </summary>
public sealed class LargeDataExperiment : IExperiment
{
    private const int Clusters = 100;
    private const int Seed = 1;

    public string Name => "large";

    public string Description => "Census-like synthetic data (10M weighted points; --quick 500k): streamed import into SQLite and PostgreSQL (seconds, importer peak memory), silo memory per point, DA and k-means passes at K = 100 on 1 and 3 silos, bits against one process.";

    public async Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var points = context.Quick ? 500_000 : 10_000_000;
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

        // 2. The same points in this process, on the grid the silos will hold.
        var generator = CensusLikePoints.Of(points, Seed);
        var data = generator.All();
        var partitions = new Salsa.Hosting.Clustering.Grid.PartitionLayout().PartitionsFor(points);
        var passes = new (string Algorithm, PartitionPass Pass)[] { ("annealing", GridExperiment.EStep(data, Clusters)), ("kmeans", GridExperiment.Lloyd(data, Clusters)) };
        var reference = new Dictionary<string, (double[] Sums, double Seconds)>();
        using (var grid = new LocalPartitions(data, partitions, new ParallelismOptions()))
        {
            foreach (var (algorithm, pass) in passes)
            {
                var sums = grid.Reduce(pass, cancellationToken);
                var times = ExperimentContext.Repeat(0, repeats, () => grid.Reduce(pass, cancellationToken));
                reference[algorithm] = (sums, Statistics.Median(times));
                context.Add($"algorithm={algorithm},k={Clusters},{pointsCase},partitions={partitions},silos=0", "seconds_per_pass", reference[algorithm].Seconds, "s");
            }
        }

        data = null;
        GC.Collect();

        // 3. Silo processes loading the PostgreSQL copy, partition by partition, and computing the passes.
        var datasetId = imports["postgres"].Id;
        foreach (var silos in new[] { 1, 3 })
        {
            var ranks = ProcessCluster.RanksSharing(silos);
            await using var cluster = await ProcessCluster.SharingCoresAsync(connectionString, silos, cancellationToken);
            var idle = cluster.Silos.Sum(s => ProcessMemory.ResidentBytes(s.ProcessId));
            var loadClock = Stopwatch.StartNew();
            var grid = await Task.Run(() => GrainPartitions.Open(cluster.Grains, datasetId, partitions, TimeSpan.FromMinutes(5), cancellationToken), cancellationToken);
            var loadSeconds = loadClock.Elapsed.TotalSeconds;
            var loaded = cluster.Silos.Sum(s => ProcessMemory.ResidentBytes(s.ProcessId)) - idle;
            var siloCase = $"{pointsCase},partitions={partitions},silos={silos},ranks_per_silo={ranks}";
            context.Add(siloCase, "load_seconds", loadSeconds, "s");
            context.Add(siloCase, "silo_bytes_per_point_loaded", (double)loaded / points, "B");
            var identical = true;
            foreach (var (algorithm, pass) in passes)
            {
                var times = new List<double>();
                for (var r = -1; r < repeats; r++)
                {
                    var clock = Stopwatch.StartNew();
                    var sums = await Task.Run(() => grid.Reduce(pass, cancellationToken), cancellationToken);
                    var seconds = clock.Elapsed.TotalSeconds;
                    identical &= sums.AsSpan().SequenceEqual(reference[algorithm].Sums);
                    if (r >= 0)
                    {
                        times.Add(seconds);
                    }
                }

                var passCase = $"algorithm={algorithm},k={Clusters},{siloCase}";
                context.Add(passCase, "seconds_per_pass", Statistics.Median(times), "s");
                context.Add(passCase, "ratio_to_in_process", Statistics.Median(times) / reference[algorithm].Seconds, "×");
            }

            // Resident memory the silos gained by holding the points and computing on them.
            var held = cluster.Silos.Sum(s => ProcessMemory.ResidentBytes(s.ProcessId)) - idle;
            context.Add(siloCase, "silo_bytes_per_point", (double)held / points, "B");
            context.Add(siloCase, "identical_to_single_node", identical ? 1 : 0, "bool");
            context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"  silos={silos}: loaded in {loadSeconds:F1} s, {(double)held / points:F1} B per point resident, identical {identical}"));
        }

        context.Section("Data past a machine's comfort", string.Create(CultureInfo.InvariantCulture,
            $"{points:N0} census-like points (`CensusLikePoints`: the populated national block groups split, jitter {CensusLikePoints.JitterKm} km, seed {Seed}), {partitions} partitions, K = {Clusters}. ") +
            "The generator runs as a process of its own (`Salsa.Bench --generate`) and streams parts of 65,536 points into the store " +
            "(`IDataStore.ImportDatasetAsync`); its peak resident memory is the process's VmHWM. Silos are processes on this machine sharing its cores " +
            "(so 3 silos measure the overhead of spreading, not a speed-up); a silo's partitions read their own row ranges from PostgreSQL. " +
            "Memory per point is the silos' resident-set growth from idle to holding the partitions (`_loaded`: right after loading; without: after the passes). " +
            "Several silos on this machine compute on a share of its cores each (`Cluster:Ranks` = cores ÷ silos).");
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
