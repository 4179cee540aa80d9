using System.Globalization;
using Salsa.Bench.Experiments.Kernels;
using Salsa.Bench.Harness;
using Salsa.Ccr;
using Salsa.Clustering.Parallel;
using Salsa.Rendering.Charts;

namespace Salsa.Bench.Experiments;

/// <summary>
/// Paper 000 figs. 3–5: the clustering kernel under scaled speed-up — a fixed number of points per
/// rank — for 10,000, 50,000 and 500,000 points per rank and 1 or 80 clusters. Time per point per
/// cluster per rank, scaled so the 10,000-point, 1-cluster, 1-rank case is 1; synchronisation
/// excluded, as in the paper.
/// </summary>
public sealed class KernelScalingExperiment : IExperiment
{
    private static readonly int[] PointsPerRank = [10_000, 50_000, 500_000];

    private static readonly int[] Clusters = [1, 80];

    public string Name => "kernel-scaling";

    public string Description => "Paper 000 figs. 3–5: scaled run time of the DA kernel against ranks, 10k/50k/500k points per rank, 1 and 80 clusters.";

    public Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var rankCounts = Enumerable.Range(1, Environment.ProcessorCount).ToArray();
        var seconds = context.Quick ? 0.3 : 2.0;
        double? baseline = null;
        foreach (var clusters in Clusters)
        {
            foreach (var n in PointsPerRank)
            {
                foreach (var ranks in rankCounts)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = ranks, Name = "bench kernel-scaling", IdleSpin = TimeSpan.Zero, PinThreads = true });
                    var harness = new KernelHarness<DenseKernel>(new DenseKernel(KernelData.Uniform(n * ranks)), KernelKind.Annealing, clusters);
                    var iterations = harness.IterationsFor(dispatcher, ranks, seconds);
                    harness.Run(dispatcher, ranks, Math.Max(iterations / 10, 2), reduce: false); // warm-up
                    var timings = harness.Run(dispatcher, ranks, iterations, reduce: false);
                    var perUnit = timings.MeanCompute / ((double)n * clusters);
                    baseline ??= perUnit;
                    var @case = $"points_per_rank={n},clusters={clusters},ranks={ranks}";
                    context.Add(@case, "scaled_time", perUnit / baseline.Value, "ratio");
                    context.Add(@case, "ns_per_point_cluster", perUnit * 1e9, "ns");
                    context.Add(@case, "iterations", iterations, "steps");
                }
            }
        }

        context.Section("Scaled run time", string.Create(CultureInfo.InvariantCulture,
            $"Mean compute time of one rank in one step, per point and per cluster, scaled so 10,000 points / 1 cluster / 1 rank = 1 " +
            $"({context.Value("points_per_rank=10000,clusters=1,ranks=1", "ns_per_point_cluster"):F2} ns). Points are uniform in 2-D; ranks run on their own dispatcher threads; " +
            $"a barrier separates the steps and is not timed. The paper's figures 3–5 show the 1-cluster case rising with cores (memory bandwidth) and the 80-cluster case flat."));
        context.Table(["clusters", "points per rank", .. rankCounts.Select(r => $"{r} rank{(r > 1 ? "s" : "")}")],
            Clusters.SelectMany(k => PointsPerRank.Select(n => (IReadOnlyList<string>)[
                k.ToString(CultureInfo.InvariantCulture), n.ToString("N0", CultureInfo.InvariantCulture),
                .. rankCounts.Select(r => ExperimentContext.Format(context.Value($"points_per_rank={n},clusters={k},ranks={r}", "scaled_time"))),
            ])));

        var panels = Clusters.Select(k =>
        {
            var chart = new Chart($"{k} cluster{(k > 1 ? "s" : "")}", "ranks (cores)", "scaled run time");
            for (var i = 0; i < PointsPerRank.Length; i++)
            {
                var n = PointsPerRank[i];
                chart.AddLine($"{n:N0} points per rank", rankCounts.Select(r => (double)r).ToArray(),
                    rankCounts.Select(r => context.Value($"points_per_rank={n},clusters={k},ranks={r}", "scaled_time")).ToArray(), Figures.Ours(Figures.Colour(i)));
            }

            return chart;
        }).ToList();
        Figures.SavePanels(context, panels, columns: 2);
        return Task.CompletedTask;
    }
}
