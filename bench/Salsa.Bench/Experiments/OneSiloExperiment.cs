using System.Diagnostics;
using System.Globalization;
using Salsa.Bench.Experiments.Kernels;
using Salsa.Bench.Harness;
using Salsa.Clustering.Annealing;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;
using Salsa.Testing;

namespace Salsa.Bench.Experiments;

/// <summary>
/// What one silo adds to a short job — the embedded default's case — and whether the runtime's
/// dynamic PGO pays for itself in a silo: Indiana DA jobs (a tenth of a second) and national
/// k-means jobs, start to result as a client sees them, on one silo process with PGO on (the
/// runtime's default) and with it off (<c>DOTNET_TieredPGO=0</c>), against the same jobs in this
/// process. Rounds alternate the sides (this process, then both silo variants in turns), each round's
/// ratios against its own in-process times, so every side sees the same moments of a noisy machine.
/// </summary>
public sealed class OneSiloExperiment : IExperiment
{
    private const int KMeansPartitions = 12;

    private static readonly (string Name, IReadOnlyDictionary<string, string>? Environment)[] Variants =
    [
        ("pgo-on", null),
        ("pgo-off", new Dictionary<string, string> { ["DOTNET_TieredPGO"] = "0" }),
    ];

    public string Name => "one-silo";

    public string Description => "Short jobs on one silo process against this process (Indiana DA, national k-means), the silo's dynamic PGO on and off, alternating in rounds.";

    public async Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var rounds = context.Quick ? 2 : 4;
        var indiana = KernelData.Census(Salsa.DataFiles.CensusBlockGroups.IndianaPath, skipUnpopulated: true);
        var indianaPartitions = new Salsa.Hosting.Clustering.Grid.PartitionLayout().PartitionsFor(indiana.Count);
        var indianaJob = new AnnealingOptions { MaxClusters = 20 };
        var census = KernelData.Census();
        var national = context.Quick ? KernelData.Prefix(census, 60_000) : census;
        var kmeans = new KMeansOptions { Clusters = 100, Restarts = 1, MaxIterations = context.Quick ? 10 : 30, Seed = 3 };
        using var indianaGrid = new LocalPartitions(indiana, indianaPartitions, new ParallelismOptions());
        using var nationalGrid = new LocalPartitions(national, KMeansPartitions, new ParallelismOptions());
        var indianaReference = DeterministicAnnealing.Run(indianaGrid, indianaJob, cancellationToken: cancellationToken);
        var kmeansReference = WeightedKMeans.Run(nationalGrid, kmeans, cancellationToken: cancellationToken);

        await using var postgres = await PostgresServer.StartAsync(cancellationToken);
        var connectionString = await postgres.CreateDatabaseAsync("onesilo", cancellationToken);
        var (indianaId, nationalId) = (Guid.NewGuid(), Guid.NewGuid());
        var stored = false;

        var jobs = new[]
        {
            ("annealing", string.Create(CultureInfo.InvariantCulture, $"data=census-indiana,n={indiana.Count},k=20,partitions={indianaPartitions}")),
            ("kmeans", string.Create(CultureInfo.InvariantCulture, $"data={(context.Quick ? "census-60k" : "census-us")},n={national.Count},k={kmeans.Clusters},iterations={kmeans.MaxIterations},partitions={KMeansPartitions}")),
        };
        // Per job and side: each round's median, first job and (silos) CPU seconds.
        var measured = new Dictionary<(string Job, string Side), List<(double First, double Median, double CpuSeconds)>>();
        void Add(string job, string side, (double First, double Median, double CpuSeconds) round)
        {
            if (!measured.TryGetValue((job, side), out var list))
            {
                measured[(job, side)] = list = [];
            }

            list.Add(round);
        }

        var identical = true;
        for (var round = 0; round < rounds; round++)
        {
            var (indianaFirst, indianaNext, _) = await ClusterJobs.TimeJobsAsync(
                () => Task.FromResult(DeterministicAnnealing.Run(indianaGrid, indianaJob, cancellationToken: cancellationToken)), ShortJobs(context.Quick), Repeats(context.Quick));
            Add("annealing", "in-process", (indianaFirst.Seconds, indianaNext, 0));
            var (kmeansFirst, kmeansNext, _) = await ClusterJobs.TimeJobsAsync(
                () => Task.FromResult(WeightedKMeans.Run(nationalGrid, kmeans, cancellationToken: cancellationToken)), LongJobs(), LongRepeats(context.Quick));
            Add("kmeans", "in-process", (kmeansFirst.Seconds, kmeansNext, 0));

            // Both variants each round, in turns: pgo-on first in even rounds, pgo-off in odd ones.
            foreach (var (variant, environment) in round % 2 == 0 ? Variants : Variants.Reverse())
            {
                await using var cluster = await ProcessCluster.StartAsync(connectionString, 1, cancellationToken,
                    [string.Create(CultureInfo.InvariantCulture, $"--Cluster:Ranks={ProcessCluster.RanksSharing(1)}")], environment);
                if (!stored)
                {
                    await GridExperiment.StoreAsync(cluster.Client, indianaId, indiana, cancellationToken);
                    await GridExperiment.StoreAsync(cluster.Client, nationalId, national, cancellationToken);
                    stored = true;
                }

                using var silo = Process.GetProcessById(cluster.Silos[0].ProcessId);
                var cpuBefore = silo.TotalProcessorTime;
                var (first, next, same) = await ClusterJobs.TimeJobsAsync(
                    async () => (await ClusterJobs.AnnealAsync(cluster.Grains, indianaId, indianaPartitions, indianaJob, cancellationToken)).Result,
                    ShortJobs(context.Quick), Repeats(context.Quick), result => ClusterJobs.SameBits(indianaReference, result));
                silo.Refresh();
                Add("annealing", variant, (first.Seconds, next, (silo.TotalProcessorTime - cpuBefore).TotalSeconds));
                identical &= same;

                cpuBefore = silo.TotalProcessorTime;
                var (kmeansFirstOnSilo, kmeansNextOnSilo, kmeansSame) = await ClusterJobs.TimeJobsAsync(
                    async () => (await ClusterJobs.KMeansAsync(cluster.Grains, nationalId, KMeansPartitions, kmeans, cancellationToken)).Result,
                    LongJobs(), LongRepeats(context.Quick), result => ClusterJobs.SameBits(kmeansReference, result));
                silo.Refresh();
                Add("kmeans", variant, (kmeansFirstOnSilo.Seconds, kmeansNextOnSilo, (silo.TotalProcessorTime - cpuBefore).TotalSeconds));
                identical &= kmeansSame;
            }

            var ratios = jobs.SelectMany(j => Variants.Select(v => string.Create(CultureInfo.InvariantCulture,
                $"{j.Item1} {v.Name} {measured[(j.Item1, v.Name)][^1].Median / measured[(j.Item1, "in-process")][^1].Median:F2}×")));
            context.Console.WriteLine($"  round {round + 1}/{rounds}: {string.Join(", ", ratios)}");
        }

        foreach (var (job, @case) in jobs)
        {
            var inProcess = measured[(job, "in-process")];
            context.Add($"algorithm={job},{@case},silos=0", "seconds_per_job", Statistics.Median([.. inProcess.Select(r => r.Median)]), "s");
            context.Add($"algorithm={job},{@case},silos=0", "seconds_per_job_first", Statistics.Median([.. inProcess.Select(r => r.First)]), "s");
            foreach (var (variant, _) in Variants)
            {
                var rows = measured[(job, variant)];
                var side = $"algorithm={job},{@case},silos=1,runtime={variant}";
                context.Add(side, "seconds_per_job", Statistics.Median([.. rows.Select(r => r.Median)]), "s");
                context.Add(side, "ratio_to_in_process", Statistics.Median([.. rows.Select((r, i) => r.Median / inProcess[i].Median)]), "×");
                context.Add(side, "ratio_to_in_process_min", rows.Select((r, i) => r.Median / inProcess[i].Median).Min(), "×");
                context.Add(side, "ratio_to_in_process_max", rows.Select((r, i) => r.Median / inProcess[i].Median).Max(), "×");
                context.Add(side, "ratio_to_in_process_first", Statistics.Median([.. rows.Select((r, i) => r.First / inProcess[i].First)]), "×");
                context.Add(side, "silo_cpu_seconds", Statistics.Median([.. rows.Select(r => r.CpuSeconds)]), "s");
            }
        }

        context.Add("runtime=both", "identical_to_single_node", identical ? 1 : 0, "bool");
        Report(context, rounds, jobs, identical);
    }

    private static void Report(ExperimentContext context, int rounds, (string Job, string Case)[] jobs, bool identical)
    {
        context.Section("One silo against one process, dynamic PGO on and off", string.Create(CultureInfo.InvariantCulture,
            $"Whole jobs start to result as a client sees them (the coordinator's watch stream followed, as a service does), on one silo process computing on both cores, against the same jobs on the same grid in this process. " +
            $"{rounds} rounds; in each, this process's jobs, then a fresh silo process with the runtime's dynamic PGO on (its default) and one with it off (`DOTNET_TieredPGO=0`), in turns (which goes first alternates). " +
            $"Per side and round: Indiana's DA job (Kmax 20), the median of {Repeats(context.Quick)} jobs after a warm-up of {ShortJobs(context.Quick).Describe().Replace("passes", "jobs", StringComparison.Ordinal)}; national k-means (K = 100), the median of {LongRepeats(context.Quick)} after {LongJobs().Describe().Replace("passes", "jobs", StringComparison.Ordinal)}. " +
            $"**ratio** is the median over rounds of each round's silo median ÷ that round's in-process median (the range over rounds beside it); **first** the same for a process's first job of its kind; **silo CPU** the silo process's CPU seconds over a side's jobs, warm-up included (the JIT's background compiles among them). " +
            $"Every silo job's result against the one-process reference, bit for bit: {(identical ? "identical" : "NOT identical")}."));
        string Value(string @case, string metric, string format) =>
            context.Rows.FirstOrDefault(r => r.Case == @case && r.Metric == metric)?.Value.ToString(format, CultureInfo.InvariantCulture) ?? "–";
        context.Table(["job", "in process, s", "PGO on: s", "ratio (range)", "first", "silo CPU, s", "PGO off: s", "ratio (range)", "first", "silo CPU, s"],
            jobs.Select(j =>
            {
                var reference = $"algorithm={j.Job},{j.Case},silos=0";
                IEnumerable<string> Side(string variant)
                {
                    var side = $"algorithm={j.Job},{j.Case},silos=1,runtime={variant}";
                    return [
                        Value(side, "seconds_per_job", "F3"),
                        $"{Value(side, "ratio_to_in_process", "F2")} ({Value(side, "ratio_to_in_process_min", "F2")}–{Value(side, "ratio_to_in_process_max", "F2")})",
                        Value(side, "ratio_to_in_process_first", "F2"),
                        Value(side, "silo_cpu_seconds", "F1")];
                }

                return (IReadOnlyList<string>)[j.Case[..j.Case.IndexOf(",partitions=", StringComparison.Ordinal)].Replace("data=", $"{j.Job} ", StringComparison.Ordinal), Value(reference, "seconds_per_job", "F3"), .. Side("pgo-on"), .. Side("pgo-off")];
            }));
    }

    /// <summary>The warm-up of jobs of a tenth of a second (as <c>grid</c>'s): 20 s and 60 jobs (--quick: 5 s and 20).</summary>
    private static WarmUp ShortJobs(bool quick) => quick ? new(20, TimeSpan.FromSeconds(5)) : new(60, TimeSpan.FromSeconds(20));

    private static int Repeats(bool quick) => quick ? 5 : 15;

    /// <summary>The warm-up of jobs of half a second: 3 jobs.</summary>
    private static WarmUp LongJobs() => new(3, TimeSpan.Zero);

    private static int LongRepeats(bool quick) => quick ? 3 : 7;
}
