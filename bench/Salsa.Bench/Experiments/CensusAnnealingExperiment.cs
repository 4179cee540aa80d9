using System.Globalization;
using Salsa.Bench.Experiments.Kernels;
using Salsa.Bench.Harness;
using Salsa.Clustering;
using Salsa.Clustering.Annealing;
using Salsa.Clustering.KMeans;
using Salsa.Rendering.Charts;

namespace Salsa.Bench.Experiments;

/// <summary>
/// A full deterministic-annealing run on the national census set (242,335 population-weighted block
/// groups, Kmax = 100), with k-means++ on the same data for comparison of cost and time.
/// </summary>
public sealed class CensusAnnealingExperiment : IExperiment
{
    public string Name => "census-annealing";

    public string Description => "Full DA run on the national census set (242,335 points, Kmax = 100) beside k-means++.";

    public async Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var points = KernelData.Census();
        var kmax = context.Quick ? 20 : 100;
        var data = context.Quick ? KernelData.Prefix(points, 50_000) : points;
        var channel = ClusteringProgressChannel.Create(100_000);
        var annealing = await DeterministicAnnealing.RunAsync(data, new AnnealingOptions { MaxClusters = kmax }, channel.Writer, cancellationToken);
        var kmeans = await WeightedKMeans.RunAsync(data, new KMeansOptions { Clusters = kmax, Restarts = 5 }, cancellationToken: cancellationToken);

        var @case = $"data=census-{(context.Quick ? "50k" : "us")},n={data.Count},kmax={kmax},ranks={Environment.ProcessorCount}";
        context.Add(@case + ",algorithm=annealing", "run_seconds", annealing.Elapsed.TotalSeconds, "s");
        context.Add(@case + ",algorithm=annealing", "temperatures", annealing.Trajectory.Count, "steps");
        context.Add(@case + ",algorithm=annealing", "iterations", annealing.Iterations, "iterations");
        context.Add(@case + ",algorithm=annealing", "weighted_cost_km2", annealing.WeightedCost, "person·km²");
        context.Add(@case + ",algorithm=kmeans++x5", "run_seconds", kmeans.Elapsed.TotalSeconds, "s");
        context.Add(@case + ",algorithm=kmeans++x5", "weighted_cost_km2", kmeans.Inertia, "person·km²");
        context.Add(@case, "ratio_cost_annealing_to_kmeans", annealing.WeightedCost / kmeans.Inertia, "ratio");

        context.Section("Result", string.Create(CultureInfo.InvariantCulture,
            $"{data.Count:N0} block groups weighted by population, planar km (equirectangular about the population centre). " +
            $"Deterministic annealing to Kmax = {kmax}: {annealing.Elapsed.TotalSeconds:F1} s, {annealing.Trajectory.Count} temperatures, {annealing.Iterations:N0} EM iterations, " +
            $"final weighted cost {annealing.WeightedCost:E4} person·km². Best of 5 k-means++ restarts: {kmeans.Elapsed.TotalSeconds:F1} s, cost {kmeans.Inertia:E4} " +
            $"(annealing ÷ k-means = {annealing.WeightedCost / kmeans.Inertia:F4})."));

        var chart = new Chart("Annealing schedule", "temperature (km²)", "clusters") { XScale = Scale.Log10 };
        chart.AddLine("clusters", annealing.Trajectory.Select(s => s.Temperature).ToArray(), annealing.Trajectory.Select(s => (double)s.Clusters).ToArray(), Figures.Ours(Figures.Colour(0)));
        Figures.Save(context, chart);
    }
}
