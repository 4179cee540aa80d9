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
/// the census (national K = 100; Indiana K = 10, 20, 40; population-weighted) against scikit-learn and
/// ML.NET's KMeansTrainer; Butina on the 40k compounds' ECFP4 and on their first 10,000, at distance
/// cut-offs 0.6 and 0.7, against RDKit's own Butina.ClusterData on RDKit's Tanimoto distances, cluster
/// by cluster. --quick: Indiana K = 20 and 4,000 compounds.
/// </summary>
public sealed class ClusteringPeersExperiment : IExperiment
{
    private static readonly double[] Cutoffs = [0.6, 0.7];

    /// <summary>Sets of ten seeds over which best-of-10 is compared.</summary>
    private const int SeedSets = 5;

    public string Name => "clustering-peers";

    public string Description => "k-means (census, national K = 100, Indiana K = 10/20/40) vs scikit-learn and ML.NET; Taylor–Butina (ECFP4, cut-offs 0.6 and 0.7) vs RDKit, cluster by cluster.";

    public async Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var missing = Missing();
        IEnumerable<(string Name, string? Path, int K)> cases = context.Quick
            ? [("indiana", Salsa.DataFiles.CensusBlockGroups.IndianaPath, 20)]
            : [("national", null, 100), ("indiana", Salsa.DataFiles.CensusBlockGroups.IndianaPath, 10),
               ("indiana", Salsa.DataFiles.CensusBlockGroups.IndianaPath, 20), ("indiana", Salsa.DataFiles.CensusBlockGroups.IndianaPath, 40)];
        foreach (var (name, path, k) in cases)
        {
            KMeansRows(context, name, KernelData.Census(path, skipUnpopulated: true), k, missing, cancellationToken);
        }

        var all = KernelData.Fingerprints();
        foreach (var count in context.Quick ? [4_000] : new[] { all.Count, 10_000 })
        {
            await ButinaRowsAsync(context, Take(all, count), missing, cancellationToken);
        }
    }

    private static void KMeansRows(ExperimentContext context, string name, DenseVectors points, int k, string? missing, CancellationToken cancellationToken)
    {
        var @case = $"data={name},k={k}";

        // Ours: seeding timed alone; the Lloyd iteration as a run to convergence (tolerance 0: until no
        // point changes cluster) less its seeding, per iteration, median of 3 seeds.
        KMeansOptions Options(int seed) => new() { Clusters = k, Tolerance = 0, Seed = seed };
        WeightedKMeans.Run(points, Options(1) with { MaxIterations = 2 }, cancellationToken: cancellationToken);
        var seeding = Statistics.Median(ExperimentContext.Repeat(1, 3, () => WeightedKMeans.Seed(points, Options(1), cancellationToken)));
        var iteration = Statistics.Median([.. Enumerable.Range(1, 3).Select(seed =>
        {
            var seedSeconds = Statistics.Median(ExperimentContext.Repeat(0, 3, () => WeightedKMeans.Seed(points, Options(seed), cancellationToken)));
            var run = WeightedKMeans.Run(points, Options(seed), cancellationToken: cancellationToken);
            return (run.Elapsed.TotalSeconds - seedSeconds) / run.Iterations;
        })]);
        var clock = Stopwatch.StartNew();
        var best = WeightedKMeans.Run(points, new KMeansOptions { Clusters = k, Restarts = 10 }, cancellationToken: cancellationToken);
        var bestSeconds = clock.Elapsed.TotalSeconds;
        var median = Statistics.Median([.. best.RestartInertias]);

        // The spread of best-of-10: five sets of ten seeds (restart r uses seed 1 + r, so the first set is the run above).
        var spread = WeightedKMeans.Run(points, new KMeansOptions { Clusters = k, Restarts = SeedSets * 10 }, cancellationToken: cancellationToken).RestartInertias;
        var ourSets = BestOfTens(spread);
        var ours = @case + ",implementation=salsa";
        context.Add(ours, "lloyd_iteration_ms", iteration * 1000, "ms");
        context.Add(ours, "seeding_ms", seeding * 1000, "ms");
        context.Add(ours, "best10_seconds", bestSeconds, "s");
        context.Add(ours, "best10_cost", best.Inertia, "person·km²");
        context.Add(ours, "median_single_cost", median, "person·km²");
        var rows = new List<IReadOnlyList<string>>
        {
            Row($"Salsa.Clustering (greedy k-means++, {best.RestartInertias.Count} restarts, Lloyd, float64)", iteration, seeding, bestSeconds, best.Inertia, median, best.Inertia),
        };

        // ML.NET: KMeansTrainer with k-means++ initialisation and the example weights, 10 fits.
        var ml = new MLContext(seed: 1);
        var data = ml.Data.LoadFromEnumerable(Enumerable.Range(0, points.Count).Select(i => new WeightedPoint
        {
            Features = [(float)points.Values[2 * i], (float)points.Values[2 * i + 1]],
            Weight = (float)points.Weights[i],
        }));
        var mlCosts = new List<double>();
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
            mlCosts.Add(WeightedCost(points, centroids[..found]));
        }

        var mlSeconds = clock.Elapsed.TotalSeconds;
        var mlBest = mlCosts.Min();
        context.Add(@case + ",implementation=mlnet", "best10_seconds", mlSeconds, "s");
        context.Add(@case + ",implementation=mlnet", "best10_cost", mlBest, "person·km²");
        context.Add(@case, "ratio_inertia_to_mlnet_best10", best.Inertia / mlBest, "ratio");
        rows.Add(Row("ML.NET 5.0.1 KMeansTrainer (k-means++, float32)", double.NaN, double.NaN, mlSeconds, mlBest, Statistics.Median([.. mlCosts]), best.Inertia));

        var spreadRows = new List<IReadOnlyList<string>>();
        if (missing is null)
        {
            var input = Path.Combine(Directory.CreateTempSubdirectory("salsa-bench-kmeans-").FullName, "points.csv");
            File.WriteAllLines(input, Enumerable.Range(0, points.Count).Select(i => string.Create(CultureInfo.InvariantCulture,
                $"{points.Values[2 * i]:R},{points.Values[2 * i + 1]:R},{points.Weights[i]:R}")));
            var answer = Peers.RunJson(Peers.DebianPython,
                [Path.Combine(Peers.Directory, "clustering_peers.py"), "kmeans", input, k.ToString(CultureInfo.InvariantCulture), (SeedSets * 10).ToString(CultureInfo.InvariantCulture)], TimeSpan.FromMinutes(30));
            var (sIteration, sSeeding, sSeconds, sCost, sMedian) = (answer.GetProperty("lloyd_iteration_seconds").GetDouble(), answer.GetProperty("seeding_seconds").GetDouble(),
                answer.GetProperty("best10_seconds").GetDouble(), answer.GetProperty("best10_cost").GetDouble(), answer.GetProperty("median_cost").GetDouble());
            var sklearn = @case + ",implementation=sklearn";
            context.Add(sklearn, "lloyd_iteration_ms", sIteration * 1000, "ms");
            context.Add(sklearn, "seeding_ms", sSeeding * 1000, "ms");
            context.Add(sklearn, "best10_seconds", sSeconds, "s");
            context.Add(sklearn, "best10_cost", sCost, "person·km²");
            context.Add(sklearn, "median_single_cost", sMedian, "person·km²");
            context.Add(@case, "lloyd_iteration_ratio_salsa_to_sklearn", iteration / sIteration, "ratio");
            context.Add(@case, "seeding_ratio_salsa_to_sklearn", seeding / sSeeding, "ratio");
            context.Add(@case, "ratio_inertia_to_sklearn_best10", best.Inertia / sCost, "ratio");
            var theirSets = BestOfTens([.. answer.GetProperty("costs").EnumerateArray().Select(c => c.GetDouble())]);
            var setRatios = ourSets.Zip(theirSets, (o, t) => o / t).ToArray();
            context.Add(@case, "ratio_median_best10_over_seed_sets", Statistics.Median(ourSets) / Statistics.Median(theirSets), "ratio");
            context.Add(@case, "ratio_worst_seed_set", setRatios.Max(), "ratio");
            context.Add(@case, "ratio_median_single_run", median / sMedian, "ratio");
            spreadRows.Add([$"{setRatios.Length} sets of 10 seeds", string.Join(", ", ourSets.Select(c => c.ToString("E4", CultureInfo.InvariantCulture))),
                string.Join(", ", theirSets.Select(c => c.ToString("E4", CultureInfo.InvariantCulture))),
                string.Join(", ", setRatios.Select(r => r.ToString("F4", CultureInfo.InvariantCulture))),
                (Statistics.Median(ourSets) / Statistics.Median(theirSets)).ToString("F4", CultureInfo.InvariantCulture)]);
            rows.Add(Row($"scikit-learn {answer.GetProperty("sklearn").GetString()} (greedy k-means++, n_init=1, seeds 0–9, Lloyd, OpenMP threads)", sIteration, sSeeding, sSeconds, sCost, sMedian, best.Inertia));
        }

        context.Section($"k-means: {points.Count:N0} populated block groups ({name}), K = {k}, population-weighted",
            "Seeding: the K starting centres alone (ours `WeightedKMeans.Seed`, scikit-learn `kmeans_plusplus`, which in Debian's 1.2 does not take the weights), median of 3. " +
            "One Lloyd iteration: ours, a run to convergence (tolerance 0) less its seeding, divided by its iterations; scikit-learn, (41 iterations − 1) ÷ the iterations past the first it ran (it stops when no label changes); median of 3 seeds. " +
            "Best of 10: 10 runs to convergence, the lowest weighted cost Σ w·|x − c|² (ML.NET's centroids scored by the same sum in float64); median: the median of those 10 runs. " +
            "Last column: our best of 10 ÷ theirs (below 1: ours is lower)." + (missing is null ? "" : $" scikit-learn not run: {missing}"));
        context.Table(["implementation", "Lloyd iteration", "seeding", "best of 10 runs", "best cost (person·km²)", "median run's cost", "ours ÷ theirs"], rows);
        if (spreadRows.Count > 0)
        {
            context.Paragraph($"Best of 10 is the luckiest of ten runs; over {SeedSets} sets of ten seeds each (ours 1–10, 11–20, …; scikit-learn's 0–9, 10–19, …) it spreads as follows:");
            context.Table(["", "ours, best of each set", "scikit-learn, best of each set", "ours ÷ theirs, set by set", "ratio of the medians"], spreadRows);
        }
    }

    private static async Task ButinaRowsAsync(ExperimentContext context, BinaryVectors fingerprints, string? missing, CancellationToken cancellationToken)
    {
        var count = fingerprints.Count;
        var rows = new List<IReadOnlyList<string>>();
        var ours = new Dictionary<double, ButinaResult>();
        foreach (var cutoff in Cutoffs)
        {
            var @case = Case(count, cutoff);
            TaylorButina.Run(fingerprints, new ButinaOptions { Cutoff = cutoff }, cancellationToken: cancellationToken); // warm-up
            ButinaResult result = null!;
            var allocated = GC.GetTotalAllocatedBytes(precise: true);
            var seconds = Statistics.Median(ExperimentContext.Repeat(0, 3, () => result = TaylorButina.Run(fingerprints, new ButinaOptions { Cutoff = cutoff }, cancellationToken: cancellationToken)));
            allocated = (GC.GetTotalAllocatedBytes(precise: true) - allocated) / 3;
            ours[cutoff] = result;
            var shape = Shape([.. Enumerable.Range(0, result.Clusters).Select(c => result.MembersOf(c).ToArray())]);
            context.Add(@case + ",implementation=salsa", "seconds", seconds, "s");
            context.Add(@case + ",implementation=salsa", "allocated_bytes", allocated, "B");
            context.Add(@case + ",implementation=salsa", "neighbour_pairs", result.NeighbourPairs, "pairs");
            AddShape(context, @case + ",implementation=salsa", shape);
            rows.Add([$"{cutoff}", $"Salsa.Clustering Taylor–Butina ({Environment.ProcessorCount} cores)", $"{seconds:F2} s (all of it)", $"{allocated / 1e6:N0} MB allocated",
                $"{shape.Clusters:N0}", $"{shape.Singletons:N0}", $"{shape.Largest:N0}", "—"]);
        }

        if (missing is null)
        {
            var input = Path.Combine(Directory.CreateTempSubdirectory("salsa-bench-butina-").FullName, "fingerprints.hex");
            await File.WriteAllLinesAsync(input, Enumerable.Range(0, count).Select(i => Convert.ToHexStringLower(System.Runtime.InteropServices.MemoryMarshal.AsBytes(fingerprints.Fingerprint(i)))), cancellationToken);
            var answer = Peers.RunJson(Peers.DebianPython,
                [Path.Combine(Peers.Directory, "clustering_peers.py"), "butina", input, .. Cutoffs.Select(c => c.ToString(CultureInfo.InvariantCulture))], TimeSpan.FromMinutes(60));
            var distances = answer.GetProperty("distance_seconds").GetDouble();
            var version = answer.GetProperty("rdkit").GetString();
            foreach (var cut in answer.GetProperty("cutoffs").EnumerateArray())
            {
                var cutoff = cut.GetProperty("cutoff").GetDouble();
                var @case = Case(count, cutoff);
                var clustering = cut.GetProperty("cluster_seconds").GetDouble();
                int[][] theirs = [.. cut.GetProperty("clusters").EnumerateArray().Select(c => c.EnumerateArray().Select(m => m.GetInt32()).ToArray())];
                var mine = ours[cutoff];
                var same = theirs.Length == mine.Clusters && theirs.Select((members, c) => members.AsSpan().SequenceEqual(mine.MembersOf(c))).All(x => x);
                var shape = Shape(theirs);
                context.Add(@case + ",implementation=rdkit", "seconds", distances + clustering, "s");
                context.Add(@case + ",implementation=rdkit", "distance_seconds", distances, "s");
                context.Add(@case + ",implementation=rdkit", "cluster_seconds", clustering, "s");
                AddShape(context, @case + ",implementation=rdkit", shape);
                context.Add(@case, "same_as_rdkit", same ? 1 : 0, "bool");
                context.Add(@case, "speedup_salsa_over_rdkit", (distances + clustering) / context.Value(@case + ",implementation=salsa", "seconds"), "ratio");
                rows.Add([$"{cutoff}", $"RDKit {version} (BulkTanimotoSimilarity rows, Butina.ClusterData)", $"{distances + clustering:F1} s",
                    $"{distances:F1} s distances (shared by both cut-offs, {answer.GetProperty("distance_bytes").GetDouble() / 1e6:N0} MB) + {clustering:F1} s clustering",
                    $"{shape.Clusters:N0}", $"{shape.Singletons:N0}", $"{shape.Largest:N0}", same ? "yes: every centroid and member" : "**no**"]);
            }
        }

        context.Section($"Taylor–Butina: {count:N0} compounds, ECFP4 (1,024 bits), Tanimoto distance cut-offs {string.Join(" and ", Cutoffs)}",
            "Ours: exact neighbour lists (fingerprints in popcount order, only pairs the popcount bound cannot exclude compared), then the clustering pass, median of 3 after a warm-up. " +
            "RDKit: the recipe of its documentation — the lower triangle of 1 − BulkTanimotoSimilarity, row by row, then `Butina.ClusterData(..., isDistData=True)` — on the same fingerprints. " +
            "Both: j is i's neighbour when 1 − Tanimoto ≤ cut-off in double precision; compounds by decreasing neighbour count, ties by decreasing index; members centroid first, then by index. " +
            "Same as RDKit: the same clusters in the same order, each with the same centroid and members." + (missing is null ? "" : $" RDKit not run: {missing}"));
        context.Table(["cut-off", "implementation", "time", "of which / memory", "clusters", "singletons", "largest", "same as RDKit"], rows);
    }

    private static double[] BestOfTens(IReadOnlyList<double> costs) =>
        [.. costs.Chunk(10).Select(set => set.Min())];

    private static string Case(int count, double cutoff) => string.Create(CultureInfo.InvariantCulture, $"data=chem-{count},cutoff={cutoff}");

    private static (int Clusters, int Singletons, int Largest) Shape(int[][] clusters) =>
        (clusters.Length, clusters.Count(c => c.Length == 1), clusters.Max(c => c.Length));

    private static void AddShape(ExperimentContext context, string @case, (int Clusters, int Singletons, int Largest) shape)
    {
        context.Add(@case, "clusters", shape.Clusters, "clusters");
        context.Add(@case, "singletons", shape.Singletons, "clusters");
        context.Add(@case, "largest", shape.Largest, "compounds");
    }

    private static BinaryVectors Take(BinaryVectors all, int count)
    {
        if (count >= all.Count)
        {
            return all;
        }

        var words = new ulong[count * all.Words];
        for (var i = 0; i < count; i++)
        {
            all.Fingerprint(i).CopyTo(words.AsSpan(i * all.Words));
        }

        return new BinaryVectors(words, all.Bits);
    }

    private static List<string> Row(string label, double iteration, double seeding, double bestSeconds, double cost, double median, double ours) =>
    [
        label,
        double.IsFinite(iteration) ? $"{ExperimentContext.Format(iteration * 1000)} ms" : "—",
        double.IsFinite(seeding) ? $"{ExperimentContext.Format(seeding * 1000)} ms" : "—",
        $"{ExperimentContext.Format(bestSeconds)} s",
        cost.ToString("E4", CultureInfo.InvariantCulture),
        median.ToString("E4", CultureInfo.InvariantCulture),
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
