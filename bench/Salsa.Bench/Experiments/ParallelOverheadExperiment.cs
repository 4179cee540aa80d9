using System.Globalization;
using Salsa.Bench.Experiments.Kernels;
using Salsa.Bench.Harness;
using Salsa.Ccr;
using Salsa.Clustering.Parallel;
using Salsa.Graphics;
using Salsa.Graphics.Charts;

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
        var repeats = context.Quick ? 1 : 3;
        using var parallel = new Dispatcher(new DispatcherOptions { ThreadCount = p, Name = "bench overhead", IdleSpin = TimeSpan.Zero });
        using var serial = new Dispatcher(new DispatcherOptions { ThreadCount = 1, Name = "bench overhead serial", IdleSpin = TimeSpan.Zero });

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
                Measure("census", n, k, n => new DenseKernel(KernelData.Prefix(census, n)));
            }

            foreach (var n in chemN)
            {
                Measure("chem-binary", n, k, n => new BinaryKernel(KernelData.Prefix(chem, n)));
            }
        }

        // Against clusters (fig. 2): the largest n.
        foreach (var k in clusters)
        {
            Measure("census", censusN[^1], k, n => new DenseKernel(KernelData.Prefix(census, n)));
            Measure("chem-binary", chemN[^1], k, n => new BinaryKernel(KernelData.Prefix(chem, n)));
            if (k <= 20)
            {
                Measure("chem-dense", Math.Min(chemN[^1], context.Quick ? 2_000 : 10_000), k, n => new DenseKernel(KernelData.Prefix(chem, n).ToDense()));
            }
        }

        Report(context, p, censusN, chemN, clusters);
        return Task.CompletedTask;

        void Measure<TKernel>(string data, int n, int k, Func<int, TKernel> load)
            where TKernel : struct, IPointKernel
        {
            var @case = $"data={data},n={n},clusters={k},ranks={p}";
            if (!double.IsNaN(context.Value(@case, "efficiency")))
            {
                return;
            }

            cancellationToken.ThrowIfCancellationRequested();
            var harness = new KernelHarness<TKernel>(load(n * p), KernelKind.Annealing, k);
            var iterations = harness.IterationsFor(parallel, p, seconds);
            harness.Run(parallel, p, Math.Max(iterations / 10, 2), reduce: true);
            harness.Run(serial, 1, Math.Max(iterations / 10, 2), reduce: true);
            var parallelTimes = new List<double>();
            var serialTimes = new List<double>();
            for (var r = 0; r < repeats; r++)
            {
                parallelTimes.Add(harness.Run(parallel, p, iterations, reduce: true).WallPerIteration);
                serialTimes.Add(harness.Run(serial, 1, Math.Max(iterations / p, 3), reduce: true).WallPerIteration);
            }

            var tp = Statistics.Median(parallelTimes);
            var t1 = Statistics.Median(serialTimes);
            var overhead = (p * tp - t1) / t1;
            context.Add(@case, "overhead", overhead, "ratio");
            context.Add(@case, "efficiency", 1 / (1 + overhead), "ratio");
            context.Add(@case, "step_time_parallel_s", tp, "s");
            context.Add(@case, "step_time_serial_s", t1, "s");
        }
    }

    private static void Report(ExperimentContext context, int p, int[] censusN, int[] chemN, int[] clusters)
    {
        context.Section("Efficiency against grain size (fig. 1)", string.Create(CultureInfo.InvariantCulture,
            $"P = {p}. One annealing step = the E-step over each rank's blocks plus the block-ordered reduction; T(n,P) with P ranks of n points, " +
            $"T(Pn,1) one rank with all Pn points, same data. The seed reports f wandering around 0.02–0.1 (speed-up over 7 on 8 cores) for large n."));
        var rows = new List<IReadOnlyList<string>>();
        foreach (var (data, ns) in new[] { ("census", censusN), ("chem-binary", chemN) })
        {
            foreach (var k in new[] { 10, 20 })
            {
                foreach (var n in ns)
                {
                    var c = $"data={data},n={n},clusters={k},ranks={p}";
                    rows.Add([data, n.ToString("N0", CultureInfo.InvariantCulture), ExperimentContext.Format(1.0 / n), k.ToString(CultureInfo.InvariantCulture),
                        ExperimentContext.Format(context.Value(c, "overhead")), ExperimentContext.Format(context.Value(c, "efficiency"))]);
                }
            }
        }

        context.Table(["data", "n per rank", "1/n", "clusters", "f(n,P)", "efficiency"], rows);

        context.Section("Efficiency against clusters (fig. 2)", "At the largest grain of each data set; chemistry both as bits and as float64 (1,024 dimensions).");
        var byK = new List<IReadOnlyList<string>>();
        foreach (var k in clusters)
        {
            byK.Add([k.ToString(CultureInfo.InvariantCulture),
                ExperimentContext.Format(context.Value($"data=census,n={censusN[^1]},clusters={k},ranks={p}", "efficiency")),
                ExperimentContext.Format(context.Value($"data=chem-binary,n={chemN[^1]},clusters={k},ranks={p}", "efficiency")),
                ExperimentContext.Format(context.Rows.Where(r => r.Case.StartsWith("data=chem-dense,", StringComparison.Ordinal) && r.Case.Contains($",clusters={k},", StringComparison.Ordinal) && r.Metric == "efficiency").Select(r => r.Value).DefaultIfEmpty(double.NaN).First())]);
        }

        context.Table(["clusters", $"census (n={censusN[^1]:N0})", $"chem bits (n={chemN[^1]:N0})", "chem float64"], byK);

        var left = new Chart("Parallel overhead against 1/n", "1 / points per rank", "f(n,P)") { XScale = Scale.Log10 };
        var right = new Chart("Parallel overhead against clusters", "clusters", "f(n,P)");
        var palette = Palette.Categorical;
        var colour = 0;
        foreach (var (data, ns) in new[] { ("census", censusN), ("chem-binary", chemN) })
        {
            foreach (var k in new[] { 10, 20 })
            {
                left.AddLine($"{data}, {k} clusters", ns.Select(n => 1.0 / n).ToArray(),
                    ns.Select(n => context.Value($"data={data},n={n},clusters={k},ranks={p}", "overhead")).ToArray(), Figures.Ours(palette[colour++]));
            }

            right.AddLine(data, clusters.Select(k => (double)k).ToArray(),
                clusters.Select(k => context.Value($"data={data},n={ns[^1]},clusters={k},ranks={p}", "overhead")).ToArray(), Figures.Ours(palette[colour++]));
        }

        Figures.SavePanels(context, [left, right], columns: 2);
    }
}
