using System.Globalization;
using Salsa.Bench.Experiments.Kernels;
using Salsa.Bench.Harness;
using Salsa.Ccr;
using Salsa.Clustering.Parallel;
using Salsa.Rendering.Charts;
using ScottPlot;

namespace Salsa.Bench.Experiments;

/// <summary>
/// Paper 000 figs. 6–8: run-time fluctuations of loosely synchronised ranks. Over 1,000 steps each
/// separated by a synchronisation: the standard deviation over mean of the 1,000·P per-rank compute
/// times, and the mean over steps of (slowest − fastest rank) relative to the mean step.
/// </summary>
public sealed class FluctuationsExperiment : IExperiment
{
    private static readonly int[] PointsPerRank = [10_000, 50_000, 500_000];

    private static readonly int[] Clusters = [1, 80];

    public string Name => "fluctuations";

    public string Description => "Paper 000 figs. 6–8: std/mean of per-rank compute time and mean max−min across ranks over 1000 synchronisations.";

    public Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var ranks = Environment.ProcessorCount;
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = ranks, Name = "bench fluctuations", IdleSpin = TimeSpan.Zero, PinThreads = true });
        foreach (var clusters in Clusters)
        {
            foreach (var n in PointsPerRank)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var steps = context.Quick ? (n >= 500_000 ? 20 : 200) : (n >= 500_000 && clusters > 1 ? 200 : 1000);
                var harness = new KernelHarness<DenseKernel>(new DenseKernel(KernelData.Uniform(n * ranks)), KernelKind.Annealing, clusters);
                harness.Run(dispatcher, ranks, Math.Max(steps / 10, 2), reduce: true); // warm-up
                var timings = harness.Run(dispatcher, ranks, steps, reduce: true);
                var all = timings.ComputeSeconds.SelectMany(r => r).ToList();
                var mean = all.Average();
                var spread = Enumerable.Range(0, steps).Average(s =>
                    timings.ComputeSeconds.Max(r => r[s]) - timings.ComputeSeconds.Min(r => r[s]));
                var @case = $"points_per_rank={n},clusters={clusters},ranks={ranks}";
                context.Add(@case, "stddev_over_mean", Statistics.StandardDeviation(all) / mean, "ratio");
                context.Add(@case, "max_minus_min_over_mean", spread / mean, "ratio");
                context.Add(@case, "max_minus_min_us", spread * 1e6, "us");
                context.Add(@case, "mean_step_us", mean * 1e6, "us");
                context.Add(@case, "synchronisations", steps, "steps");
            }
        }

        context.Section("Fluctuations", string.Create(CultureInfo.InvariantCulture,
            $"{ranks} ranks (one per core), the annealing kernel on uniform 2-D points, each step followed by the algorithms' reduction. " +
            $"The seed reports std/mean of 5% and above for C# on Windows and about 0.4% for C on Redhat with 80 clusters (figs. 6–7)."));
        context.Table(["clusters", "points per rank", "steps", "mean step (µs)", "std/mean", "(max−min)/mean", "max−min (µs)"],
            Clusters.SelectMany(k => PointsPerRank.Select(n =>
            {
                var c = $"points_per_rank={n},clusters={k},ranks={ranks}";
                return (IReadOnlyList<string>)[
                    k.ToString(CultureInfo.InvariantCulture), n.ToString("N0", CultureInfo.InvariantCulture),
                    ExperimentContext.Format(context.Value(c, "synchronisations"), 4), ExperimentContext.Format(context.Value(c, "mean_step_us")),
                    ExperimentContext.Format(context.Value(c, "stddev_over_mean")), ExperimentContext.Format(context.Value(c, "max_minus_min_over_mean")),
                    ExperimentContext.Format(context.Value(c, "max_minus_min_us")),
                ];
            })));

        var chart = new Chart("Run-time fluctuations between synchronisations", "points per rank", "relative to the mean step") { XScale = Scale.Log10, YScale = Scale.Log10 };
        var xs = PointsPerRank.Select(n => (double)n).ToArray();
        var colour = 0;
        foreach (var k in Clusters)
        {
            chart.AddLine($"std/mean, {k} cluster(s)", xs, PointsPerRank.Select(n => context.Value($"points_per_rank={n},clusters={k},ranks={ranks}", "stddev_over_mean")).ToArray(), Figures.Ours(Figures.Colour(colour++)));
            chart.AddLine($"(max−min)/mean, {k} cluster(s)", xs, PointsPerRank.Select(n => context.Value($"points_per_rank={n},clusters={k},ranks={ranks}", "max_minus_min_over_mean")).ToArray(), Figures.Ours(Figures.Colour(colour++), MarkerShape.FilledSquare));
        }

        Figures.Save(context, chart);
        return Task.CompletedTask;
    }
}
