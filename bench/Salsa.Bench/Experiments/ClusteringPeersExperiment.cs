using System.Diagnostics;
using System.Globalization;
using Microsoft.ML;
using Microsoft.ML.Data;
using Microsoft.ML.Trainers;
using Salsa.Bench.Experiments.Kernels;
using Salsa.Bench.Harness;
using Salsa.Clustering;
using Salsa.Clustering.Fingerprints;
using Salsa.Clustering.KMeans;

namespace Salsa.Bench.Experiments;

/// <summary>
/// Our k-means and Taylor–Butina beside the libraries a user would pick, in the same run: k-means on
/// the national census set (K = 100, population-weighted) against scikit-learn and ML.NET's
/// KMeansTrainer; Butina on the 40k compounds' ECFP4 at distance cut-off 0.6 against RDKit's own
/// Butina.ClusterData on RDKit's Tanimoto distances. --quick: Indiana (K = 20) and 4,000 compounds.
/// </summary>
public sealed class ClusteringPeersExperiment : IExperiment
{
    public string Name => "clustering-peers";

    public string Description => "k-means (national census, K = 100) vs scikit-learn and ML.NET; Taylor–Butina (40k ECFP4, cut-off 0.6) vs RDKit.";

    public async Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var missing = Missing();
        KMeansRows(context, missing, cancellationToken);
        await ButinaRowsAsync(context, missing, cancellationToken);
    }

    private static void KMeansRows(ExperimentContext context, string? missing, CancellationToken cancellationToken)
    {
        var (name, points, k) = context.Quick
            ? ("indiana", KernelData.Census(Salsa.Datasets.CensusBlockGroups.IndianaPath, skipUnpopulated: true), 20)
            : ("national", KernelData.Census(), 100);
        var @case = $"data={name},k={k}";

        // Ours: one restart with 1 and with 21 Lloyd iterations (tolerance 0) gives the marginal
        // iteration; seeding is the rest of the 1-iteration run.
        double Fit(int iterations, int seed) =>
            WeightedKMeans.Run(points, new KMeansOptions { Clusters = k, MaxIterations = iterations, Tolerance = 0, Seed = seed }, cancellationToken: cancellationToken).Elapsed.TotalSeconds;
        Fit(2, 1);
        var one = Statistics.Median([.. Enumerable.Range(1, 3).Select(s => Fit(1, s))]);
        var many = Statistics.Median([.. Enumerable.Range(1, 3).Select(s => Fit(21, s))]);
        var iteration = (many - one) / 20;
        var clock = Stopwatch.StartNew();
        var best = WeightedKMeans.Run(points, new KMeansOptions { Clusters = k, Restarts = 10 }, cancellationToken: cancellationToken);
        var bestSeconds = clock.Elapsed.TotalSeconds;
        context.Add(@case + ",implementation=salsa", "lloyd_iteration_ms", iteration * 1000, "ms");
        context.Add(@case + ",implementation=salsa", "seeding_ms", (one - iteration) * 1000, "ms");
        context.Add(@case + ",implementation=salsa", "best10_seconds", bestSeconds, "s");
        context.Add(@case + ",implementation=salsa", "best10_cost", best.Inertia, "person·km²");
        var rows = new List<IReadOnlyList<string>>
        {
            Row("Salsa.Clustering (k-means++, Lloyd, float64)", iteration, one - iteration, bestSeconds, best.Inertia, best.Inertia),
        };

        // ML.NET: KMeansTrainer with k-means++ initialisation and the example weights, 10 fits.
        var ml = new MLContext(seed: 1);
        var data = ml.Data.LoadFromEnumerable(Enumerable.Range(0, points.Count).Select(i => new WeightedPoint
        {
            Features = [(float)points.Values[2 * i], (float)points.Values[2 * i + 1]],
            Weight = (float)points.Weights[i],
        }));
        var mlBest = double.PositiveInfinity;
        clock.Restart();
        for (var restart = 0; restart < 10; restart++)
        {
            var trainer = ml.Clustering.Trainers.KMeans(new KMeansTrainer.Options
            {
                FeatureColumnName = nameof(WeightedPoint.Features),
                ExampleWeightColumnName = nameof(WeightedPoint.Weight),
                NumberOfClusters = k,
                InitializationAlgorithm = KMeansTrainer.InitializationAlgorithm.KMeansPlusPlus,
                MaximumNumberOfIterations = 300,
                NumberOfThreads = Environment.ProcessorCount,
            });
            var model = trainer.Fit(data);
            VBuffer<float>[] centroids = [];
            model.Model.GetClusterCentroids(ref centroids, out var found);
            mlBest = Math.Min(mlBest, WeightedCost(points, centroids[..found]));
        }

        var mlSeconds = clock.Elapsed.TotalSeconds;
        context.Add(@case + ",implementation=mlnet", "best10_seconds", mlSeconds, "s");
        context.Add(@case + ",implementation=mlnet", "best10_cost", mlBest, "person·km²");
        context.Add(@case + ",implementation=mlnet", "cost_ratio_salsa_to", best.Inertia / mlBest, "ratio");
        rows.Add(Row("ML.NET 5.0.1 KMeansTrainer (k-means++, float32)", double.NaN, double.NaN, mlSeconds, mlBest, best.Inertia));

        if (missing is null)
        {
            var input = Path.Combine(Directory.CreateTempSubdirectory("salsa-bench-kmeans-").FullName, "points.csv");
            File.WriteAllLines(input, Enumerable.Range(0, points.Count).Select(i => string.Create(CultureInfo.InvariantCulture,
                $"{points.Values[2 * i]:R},{points.Values[2 * i + 1]:R},{points.Weights[i]:R}")));
            var answer = Peers.RunJson(Peers.DebianPython, [Path.Combine(Peers.Directory, "clustering_peers.py"), "kmeans", input, k.ToString(CultureInfo.InvariantCulture)], TimeSpan.FromMinutes(30));
            var (sIteration, sSeeding, sSeconds, sCost) = (answer.GetProperty("lloyd_iteration_seconds").GetDouble(), answer.GetProperty("seeding_seconds").GetDouble(),
                answer.GetProperty("best10_seconds").GetDouble(), answer.GetProperty("best10_cost").GetDouble());
            context.Add(@case + ",implementation=sklearn", "lloyd_iteration_ms", sIteration * 1000, "ms");
            context.Add(@case + ",implementation=sklearn", "seeding_ms", sSeeding * 1000, "ms");
            context.Add(@case + ",implementation=sklearn", "best10_seconds", sSeconds, "s");
            context.Add(@case + ",implementation=sklearn", "best10_cost", sCost, "person·km²");
            context.Add(@case, "lloyd_iteration_ratio_salsa_to_sklearn", iteration / sIteration, "ratio");
            context.Add(@case, "seeding_ratio_salsa_to_sklearn", (one - iteration) / sSeeding, "ratio");
            context.Add(@case, "cost_ratio_salsa_to_sklearn", best.Inertia / sCost, "ratio");
            rows.Add(Row($"scikit-learn {answer.GetProperty("sklearn").GetString()} (Lloyd, OpenMP threads)", sIteration, sSeeding, sSeconds, sCost, best.Inertia));
        }

        context.Section($"k-means: {points.Count:N0} block groups ({name}), K = {k}, population-weighted",
            "One Lloyd iteration is the marginal cost: (21 iterations − 1 iteration) / 20, tolerance 0, median of 3 seeds each; seeding is the 1-iteration run less one iteration " +
            "(scikit-learn: `kmeans_plusplus`, which in Debian's 1.2 does not take the weights). Best of 10: 10 k-means++ restarts to convergence, the lowest weighted cost Σ w·|x − c|² " +
            "(ML.NET's centroids scored by the same sum in float64)." + (missing is null ? "" : $" scikit-learn not run: {missing}"));
        context.Table(["implementation", "Lloyd iteration", "k-means++ seeding", "best of 10 restarts", "best cost (person·km²)", "ours ÷ theirs"], rows);
    }

    private static async Task ButinaRowsAsync(ExperimentContext context, string? missing, CancellationToken cancellationToken)
    {
        var all = KernelData.Fingerprints();
        var count = context.Quick ? 4_000 : all.Count;
        var fingerprints = all;
        if (count < all.Count)
        {
            var words = new ulong[count * all.Words];
            for (var i = 0; i < count; i++)
            {
                all.Fingerprint(i).CopyTo(words.AsSpan(i * all.Words));
            }

            fingerprints = new BinaryVectors(words, all.Bits);
        }

        const double cutoff = 0.6;
        var @case = $"data=chem-{count},cutoff={cutoff}";

        TaylorButina.Run(fingerprints, new ButinaOptions { Cutoff = cutoff }, cancellationToken: cancellationToken); // warm-up
        ButinaResult ours = null!;
        var allocated = GC.GetTotalAllocatedBytes(precise: true);
        var seconds = ExperimentContext.Repeat(0, 3, () => ours = TaylorButina.Run(fingerprints, new ButinaOptions { Cutoff = cutoff }, cancellationToken: cancellationToken));
        allocated = (GC.GetTotalAllocatedBytes(precise: true) - allocated) / 3;
        var median = Statistics.Median(seconds);
        context.Add(@case + ",implementation=salsa", "seconds", median, "s");
        context.Add(@case + ",implementation=salsa", "clusters", ours.Clusters, "clusters");
        context.Add(@case + ",implementation=salsa", "allocated_bytes", allocated, "B");
        context.Add(@case + ",implementation=salsa", "neighbour_pairs", ours.NeighbourPairs, "pairs");
        var rows = new List<IReadOnlyList<string>>();
        rows.Add([$"Salsa.Clustering Taylor–Butina ({Environment.ProcessorCount} cores)", $"{median:F2} s (all of it)", "—", $"{ours.Clusters:N0}", $"{allocated / 1e6:N0} MB allocated (neighbour lists)", "—"]);

        if (missing is null)
        {
            var input = Path.Combine(Directory.CreateTempSubdirectory("salsa-bench-butina-").FullName, "fingerprints.hex");
            await File.WriteAllLinesAsync(input, Enumerable.Range(0, count).Select(i => Convert.ToHexStringLower(System.Runtime.InteropServices.MemoryMarshal.AsBytes(fingerprints.Fingerprint(i)))), cancellationToken);
            var answer = Peers.RunJson(Peers.DebianPython, [Path.Combine(Peers.Directory, "clustering_peers.py"), "butina", input, cutoff.ToString(CultureInfo.InvariantCulture)], TimeSpan.FromMinutes(60));
            var distances = answer.GetProperty("distance_seconds").GetDouble();
            var clustering = answer.GetProperty("cluster_seconds").GetDouble();
            var centroids = answer.GetProperty("centroids").EnumerateArray().Select(e => e.GetInt32()).ToArray();
            var same = Enumerable.Range(0, count).Count(i => ours.Centroids[ours.Assignments[i]] == centroids[i]);
            context.Add(@case + ",implementation=rdkit", "seconds", distances + clustering, "s");
            context.Add(@case + ",implementation=rdkit", "distance_seconds", distances, "s");
            context.Add(@case + ",implementation=rdkit", "cluster_seconds", clustering, "s");
            context.Add(@case + ",implementation=rdkit", "clusters", answer.GetProperty("clusters").GetInt32(), "clusters");
            context.Add(@case, "speedup_salsa_over_rdkit", (distances + clustering) / median, "ratio");
            context.Add(@case, "compounds_with_the_same_centroid", same, "compounds");
            rows.Add([$"RDKit {answer.GetProperty("rdkit").GetString()} (python3-rdkit: BulkTanimotoSimilarity rows, Butina.ClusterData)", $"{distances + clustering:F1} s",
                $"{distances:F1} s distances + {clustering:F1} s clustering", $"{answer.GetProperty("clusters").GetInt32():N0}",
                $"{answer.GetProperty("distance_bytes").GetDouble() / 1e6:N0} MB of distances", $"{(distances + clustering) / median:F0}× slower; {same:N0} of {count:N0} compounds with the same centroid"]);
        }

        context.Section($"Taylor–Butina: {count:N0} compounds, ECFP4 (1,024 bits), Tanimoto distance cut-off {cutoff}",
            "Ours: exact neighbour lists (fingerprints in popcount order, only pairs the popcount bound cannot exclude compared), then the clustering pass, median of 3 after a warm-up. " +
            "RDKit: the recipe of its documentation — the lower triangle of 1 − BulkTanimotoSimilarity, row by row, then `Butina.ClusterData(..., isDistData=True)` — on the same fingerprints. " +
            "Both take compounds by decreasing neighbour count, ties by decreasing index." + (missing is null ? "" : $" RDKit not run: {missing}"));
        context.Table(["implementation", "time", "of which", "clusters", "memory", "against ours"], rows);
    }

    private static List<string> Row(string label, double iteration, double seeding, double bestSeconds, double cost, double ours) =>
    [
        label,
        double.IsFinite(iteration) ? $"{iteration * 1000:F1} ms" : "—",
        double.IsFinite(seeding) ? $"{seeding * 1000:F0} ms" : "—",
        $"{bestSeconds:F2} s",
        cost.ToString("E4", CultureInfo.InvariantCulture),
        (ours / cost).ToString("F4", CultureInfo.InvariantCulture),
    ];

    private static double WeightedCost(DenseVectors points, VBuffer<float>[] centroids)
    {
        var centres = centroids.Select(c => c.DenseValues().Select(v => (double)v).ToArray()).ToArray();
        var cost = 0.0;
        for (var i = 0; i < points.Count; i++)
        {
            var (x, y) = (points.Values[2 * i], points.Values[2 * i + 1]);
            var nearest = double.PositiveInfinity;
            foreach (var v in centres)
            {
                nearest = Math.Min(nearest, (x - v[0]) * (x - v[0]) + (y - v[1]) * (y - v[1]));
            }

            cost += points.Weights[i] * nearest;
        }

        return cost;
    }

    private static string? Missing() => Peers.MissingPython("python3-sklearn python3-rdkit", "sklearn", "rdkit");

    private sealed class WeightedPoint
    {
        [VectorType(2)]
        public float[] Features { get; set; } = [];

        public float Weight { get; set; }
    }
}
