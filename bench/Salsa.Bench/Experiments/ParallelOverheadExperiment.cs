using System.Globalization;
using Salsa.Bench.Experiments.Kernels;
using Salsa.Bench.Harness;
using Salsa.Ccr;
using Salsa.Clustering;
using Salsa.Clustering.Parallel;
using Salsa.Rendering.Charts;

namespace Salsa.Bench.Experiments;

/// <summary>
/// Paper 000 figs. 1–2: parallel overhead f(n,P) = (P·T(n,P) − T(Pn,1)) / T(Pn,1) of a full
/// annealing step (kernel and deterministic reduction), against 1/n and against the number of
/// clusters, on the census and chemistry data (fingerprints as bits and as float64).
/// Efficiency = 1/(1+f).
/// </summary>
public sealed class ParallelOverheadExperiment : IExperiment
{
    public string Name => "parallel-overhead";

    public string Description => "Paper 000 figs. 1–2: f(n,P) and efficiency 1/(1+f) against 1/n and clusters, census and chemistry (dense and binary).";

    public Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var p = Environment.ProcessorCount;
        var seconds = context.Quick ? 0.25 : 1.5;
        var pairs = context.Quick ? 3 : 11;

        // Ranks pinned one per core, as MPI binds them (Salsa.Ccr's SPMD default).
        using var parallel = new Dispatcher(new DispatcherOptions { ThreadCount = p, Name = "bench overhead", IdleSpin = TimeSpan.Zero, PinThreads = true });
        var serial = Enumerable.Range(0, p)
            .Select(core => new Dispatcher(new DispatcherOptions { ThreadCount = 1, Name = $"bench overhead serial {core}", IdleSpin = TimeSpan.Zero, PinThreads = true, FirstCore = core }))
            .ToArray();
        try
        {
            var census = KernelData.Census();
            var chem = KernelData.Fingerprints();
            int[] censusN = context.Quick ? [5_000, 25_000, 100_000] : [2_000, 5_000, 10_000, 25_000, 50_000, 100_000, 121_000];
            int[] chemN = context.Quick ? [2_000, 10_000] : [1_000, 2_000, 5_000, 10_000, 20_000];
            int[] clusters = context.Quick ? [10, 80] : [5, 10, 20, 40, 80];

            // Against 1/n (fig. 1): 10 and 20 clusters.
            foreach (var k in new[] { 10, 20 })
            {
                foreach (var n in censusN)
                {
                    Measure("census", n, k, n => new DenseKernel(KernelData.Prefix(census, n)), n >= 50_000 ? census : null);
                }

                foreach (var n in chemN)
                {
                    Measure("chem-binary", n, k, n => new BinaryKernel(KernelData.Prefix(chem, n)), null);
                }
            }

            // Against clusters (fig. 2): the largest n.
            foreach (var k in clusters)
            {
                Measure("census", censusN[^1], k, n => new DenseKernel(KernelData.Prefix(census, n)), census);
                Measure("chem-binary", chemN[^1], k, n => new BinaryKernel(KernelData.Prefix(chem, n)), null);
                if (k <= 20)
                {
                    Measure("chem-dense", Math.Min(chemN[^1], context.Quick ? 2_000 : 10_000), k, n => new DenseKernel(KernelData.Prefix(chem, n).ToDense()), null);
                }
            }

            Report(context, p, censusN, chemN, clusters);
        }
        finally
        {
            foreach (var dispatcher in serial)
            {
                dispatcher.Dispose();
            }
        }

        return Task.CompletedTask;

        // One case: `pairs` alternations of (P ranks on P cores) and the serial baselines, f from the
        // median of the per-pair ratios. Two serial baselines: the paper's T(Pn,1) with the other
        // cores idle (which a boosting CPU runs faster than any core of a busy machine), and the same
        // run with every core running its own copy, which puts both sides on equal clocks and leaves
        // f to what parallelism costs: partitioning, imbalance, synchronisation and the reduction.
        void Measure<TKernel>(string data, int n, int k, Func<int, TKernel> load, DenseVectors? reference)
            where TKernel : struct, IPointKernel
        {
            var @case = $"data={data},n={n},clusters={k},ranks={p}";
            if (!double.IsNaN(context.Value(@case, "efficiency")))
            {
                return;
            }

            cancellationToken.ThrowIfCancellationRequested();
            var points = load(n * p);
            var harness = new KernelHarness<TKernel>(points, KernelKind.Annealing, k);
            var iterations = Math.Max(harness.IterationsFor(parallel, p, seconds) / pairs, 3);
            var serialIterations = Math.Max(iterations / p, 3);
            harness.Run(parallel, p, Math.Max(iterations / 4, 2), reduce: true);
            harness.Run(parallel, p, Math.Max(iterations / 4, 2), reduce: true, balance: true);
            harness.Run(serial[0], 1, Math.Max(serialIterations / 4, 2), reduce: true);

            var loadedRatios = new List<double>();
            var staticRatios = new List<double>();
            var idleRatios = new List<double>();
            var syncShares = new List<double>();
            var parallelTimes = new List<double>();
            for (var r = 0; r < pairs; r++)
            {
                var run = harness.Run(parallel, p, iterations, reduce: true, balance: true);
                var fixedShares = harness.Run(parallel, p, iterations, reduce: true);
                var idle = harness.Run(serial[0], 1, serialIterations, reduce: true).WallPerIteration;
                var loaded = serial.AsParallel().WithDegreeOfParallelism(p)
                    .Select(d => harness.Run(d, 1, serialIterations, reduce: true).WallPerIteration).Average();
                parallelTimes.Add(run.WallPerIteration);
                loadedRatios.Add(run.WallPerIteration / loaded);
                staticRatios.Add(fixedShares.WallPerIteration / loaded);
                idleRatios.Add(run.WallPerIteration / idle);
                syncShares.Add(1 - run.MeanCompute / run.WallPerIteration);
            }

            var overhead = p * Statistics.Median(loadedRatios) - 1;
            var idleOverhead = p * Statistics.Median(idleRatios) - 1;
            context.Add(@case, "overhead", overhead, "ratio");
            context.Add(@case, "efficiency", 1 / (1 + overhead), "ratio");
            context.Add(@case, "efficiency_idle_baseline", 1 / (1 + idleOverhead), "ratio");
            context.Add(@case, "efficiency_static", 1 / (p * Statistics.Median(staticRatios)), "ratio");
            context.Add(@case, "sync_share", Statistics.Median(syncShares), "ratio");
            context.Add(@case, "step_time_parallel_s", Statistics.Median(parallelTimes), "s");
            if (reference is not null && ReferenceEfficiency(harness, KernelData.Prefix(reference, n * p), Math.Max(iterations * pairs / 3, 5), p) is { } c)
            {
                context.Add(@case, "c_openmp_efficiency_idle_baseline", c, "ratio");
            }
        }
    }

    /// <summary>
    /// The C/OpenMP reference's efficiency on the same step (threads bound to cores): T(Pn,1) with the
    /// other cores idle over P·T(n,P), median of three alternations — the machine's own scaling.
    /// </summary>
    private static double? ReferenceEfficiency<TKernel>(KernelHarness<TKernel> harness, DenseVectors points, int iterations, int p)
        where TKernel : struct, IPointKernel
    {
        if (Peers.BuildError is not null)
        {
            return null;
        }

        var input = Path.Combine(Path.GetTempPath(), $"salsa-overhead-{Environment.ProcessId}.bin");
        var bind = new Dictionary<string, string> { ["OMP_PROC_BIND"] = "true", ["OMP_PLACES"] = "cores" };
        try
        {
            harness.WriteReferenceInput(input, points);
            double Step(int threads, int count) => Peers.RunJson(Peers.PathOf("kernels"),
                [input, "da", count.ToString(CultureInfo.InvariantCulture), threads.ToString(CultureInfo.InvariantCulture)], TimeSpan.FromMinutes(10), bind)
                .GetProperty("seconds_per_iteration").GetDouble();
            var ratios = Enumerable.Range(0, 3).Select(_ => Step(1, Math.Max(iterations / p, 3)) / (p * Step(p, iterations))).ToList();
            return Statistics.Median(ratios);
        }
        finally
        {
            File.Delete(input);
        }
    }

    private static void Report(ExperimentContext context, int p, int[] censusN, int[] chemN, int[] clusters)
    {
        string Value(string @case, string metric) => ExperimentContext.Format(context.Value(@case, metric));
        context.Section("Efficiency against grain size (fig. 1)", string.Create(CultureInfo.InvariantCulture,
            $"P = {p}, ranks pinned one per core. One annealing step = the E-step over the blocks plus the block-ordered reduction, as the algorithms run it: " +
            $"each rank computes its own blocks, then takes blocks the other has not started (the partials, and so the results, do not depend on who computes a block); " +
            $"T(n,P): P ranks of n points; T(Pn,1): one rank with all Pn points, same data; f = (P·T(n,P) − T(Pn,1)) / T(Pn,1), median over alternating pairs. " +
            $"**efficiency** uses T(Pn,1) measured with every core running its own copy (both sides at all-core clocks: what parallelism costs); " +
            $"**idle baseline** is the paper's literal T(Pn,1) with the other cores idle, which this VM's CPU runs up to ~1.6× faster (boost), " +
            $"so it mixes clock speed into f; the **C/OpenMP** column is the C reference of the same step measured the same way in the same run (dense data only). " +
            $"**static** is the same efficiency with each rank held to its own n points (the paper's fixed decomposition), measured in the same pairs. " +
            $"**sync** = share of the balanced parallel step not spent computing (barrier, imbalance, reduction). Efficiency above 1 (f below 0) means the parallel step beat the baseline measured beside it: within this VM's step-to-step noise, or the all-core baseline's P full copies competing for the shared cache. The seed reports f around 0.02–0.1 for large n (speed-up over 7 on 8 cores)."));
        var rows = new List<IReadOnlyList<string>>();
        foreach (var (data, ns) in new[] { ("census", censusN), ("chem-binary", chemN) })
        {
            foreach (var k in new[] { 10, 20 })
            {
                foreach (var n in ns)
                {
                    var c = $"data={data},n={n},clusters={k},ranks={p}";
                    rows.Add([data, n.ToString("N0", CultureInfo.InvariantCulture), ExperimentContext.Format(1.0 / n), k.ToString(CultureInfo.InvariantCulture),
                        Value(c, "overhead"), Value(c, "efficiency"), Value(c, "efficiency_static"), Value(c, "efficiency_idle_baseline"), Value(c, "c_openmp_efficiency_idle_baseline"), Value(c, "sync_share")]);
                }
            }
        }

        context.Table(["data", "n per rank", "1/n", "clusters", "f(n,P)", "efficiency", "static", "idle baseline", "C/OpenMP, idle baseline", "sync"], rows);

        context.Section("Efficiency against clusters (fig. 2)", "At the largest grain of each data set; chemistry both as bits and as float64 (1,024 dimensions). Efficiency as above (all-core baseline); idle baseline in brackets.");
        var byK = new List<IReadOnlyList<string>>();
        foreach (var k in clusters)
        {
            string Both(string @case) => double.IsNaN(context.Value(@case, "efficiency")) ? "–" : $"{Value(@case, "efficiency")} ({Value(@case, "efficiency_idle_baseline")})";
            var dense = context.Rows.FirstOrDefault(r => r.Case.StartsWith("data=chem-dense,", StringComparison.Ordinal) && r.Case.Contains($",clusters={k},", StringComparison.Ordinal) && r.Metric == "efficiency")?.Case;
            byK.Add([k.ToString(CultureInfo.InvariantCulture),
                Both($"data=census,n={censusN[^1]},clusters={k},ranks={p}"),
                Both($"data=chem-binary,n={chemN[^1]},clusters={k},ranks={p}"),
                dense is null ? "–" : Both(dense)]);
        }

        context.Table(["clusters", $"census (n={censusN[^1]:N0})", $"chem bits (n={chemN[^1]:N0})", "chem float64"], byK);

        var left = new Chart("Parallel overhead against 1/n", "1 / points per rank", "f(n,P)") { XScale = Scale.Log10 };
        var right = new Chart("Parallel overhead against clusters", "clusters", "f(n,P)");
        var colour = 0;
        foreach (var (data, ns) in new[] { ("census", censusN), ("chem-binary", chemN) })
        {
            foreach (var k in new[] { 10, 20 })
            {
                left.AddLine($"{data}, {k} clusters", ns.Select(n => 1.0 / n).ToArray(),
                    ns.Select(n => context.Value($"data={data},n={n},clusters={k},ranks={p}", "overhead")).ToArray(), Figures.Ours(Figures.Colour(colour++)));
            }

            right.AddLine(data, clusters.Select(k => (double)k).ToArray(),
                clusters.Select(k => context.Value($"data={data},n={ns[^1]},clusters={k},ranks={p}", "overhead")).ToArray(), Figures.Ours(Figures.Colour(colour++)));
        }

        Figures.SavePanels(context, [left, right], columns: 2);
    }
}
