using System.Threading.Channels;
using Salsa.Clustering.Fingerprints;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Tests;

public sealed class ButinaTests
{
    private static readonly Lazy<double[,]> NaiveDistances = new(() =>
    {
        var points = ChemFixtures.Chem500;
        var distances = new double[points.Count, points.Count];
        for (var i = 0; i < points.Count; i++)
        {
            for (var j = 0; j < points.Count; j++)
            {
                distances[i, j] = ChemFixtures.NaiveDistance(points.Fingerprint(i), points.Fingerprint(j));
            }
        }

        return distances;
    });

    [Theory]
    [InlineData(0.3)]
    [InlineData(0.35)]
    [InlineData(0.5)]
    [InlineData(0.7)]
    public void Run_Chem500_MatchesANaiveReference(double cutoff)
    {
        var points = ChemFixtures.Chem500;

        var result = TaylorButina.Run(points, new ButinaOptions { Cutoff = cutoff });
        var reference = NaiveButina(NaiveDistances.Value, cutoff);

        Assert.Equal(reference.NeighbourCounts, result.NeighbourCounts);
        Assert.Equal(reference.Clusters.Count, result.Clusters);
        for (var c = 0; c < result.Clusters; c++)
        {
            Assert.Equal(reference.Clusters[c][0], result.Centroids[c]);
            Assert.Equal(reference.Clusters[c], result.MembersOf(c).ToArray());
            Assert.Equal(reference.Clusters[c].Count, result.ClusterSizes[c]);
            foreach (var member in reference.Clusters[c])
            {
                Assert.Equal(c, result.Assignments[member]);
            }
        }
    }

    /// <summary>
    /// RDKit's own clusters (its Butina.ClusterData on 1 − BulkTanimotoSimilarity, checked in under
    /// References/ with the command in their first line): the same centroids in the same order, each with
    /// the same members in the same order.
    /// </summary>
    [Theory]
    [InlineData("chem500", 500, 0.6)]
    [InlineData("chem500", 500, 0.7)]
    [InlineData("40k-first10000", 10_000, 0.6)]
    [InlineData("40k-first10000", 10_000, 0.7)]
    public void Run_RealCompounds_EqualsRdkitsClustering(string set, int count, double cutoff)
    {
        var points = count == 500 ? ChemFixtures.Chem500 : ChemFixtures.Take(ChemFixtures.Chem40k, count);
        var reference = File.ReadLines(Path.Combine(AppContext.BaseDirectory, "References", FormattableString.Invariant($"rdkit-butina-{set}-{cutoff}.txt")))
            .Where(line => !line.StartsWith('#'))
            .Select(line => line.Split(' ').Select(int.Parse).ToArray())
            .ToArray();

        var result = TaylorButina.Run(points, new ButinaOptions { Cutoff = cutoff, Parallel = new ParallelismOptions { Ranks = 3 } });

        Assert.Equal(reference.Length, result.Clusters);
        for (var c = 0; c < reference.Length; c++)
        {
            Assert.Equal(reference[c], result.MembersOf(c).ToArray());
        }
    }

    [Theory]
    [InlineData(0.2)]
    [InlineData(0.5)]
    [InlineData(0.9)]
    public void Run_EmptyDuplicateAndShortPrints_MatchesANaiveReference(double cutoff)
    {
        // 100-bit prints (two words, the last partial) of a few bits each, some empty, many repeated.
        var random = new Random(17);
        var words = new ulong[300 * 2];
        for (var i = 0; i < 300; i++)
        {
            var bits = random.Next(0, 6);
            for (var b = 0; b < bits; b++)
            {
                var bit = random.Next(100);
                words[2 * i + bit / 64] |= 1UL << (bit % 64);
            }
        }

        var points = new BinaryVectors(words, 100);
        var distances = new double[points.Count, points.Count];
        for (var i = 0; i < points.Count; i++)
        {
            for (var j = 0; j < points.Count; j++)
            {
                distances[i, j] = ChemFixtures.NaiveDistance(points.Fingerprint(i), points.Fingerprint(j));
            }
        }

        var result = TaylorButina.Run(points, new ButinaOptions { Cutoff = cutoff, Parallel = new ParallelismOptions { Ranks = 3 } });
        var reference = NaiveButina(distances, cutoff);

        Assert.Equal(reference.NeighbourCounts, result.NeighbourCounts);
        Assert.Equal(reference.Clusters.Count, result.Clusters);
        for (var c = 0; c < result.Clusters; c++)
        {
            Assert.Equal(reference.Clusters[c], result.MembersOf(c).ToArray());
        }
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    public void Run_AnyNumberOfRanks_IdenticalToOneRank(int ranks)
    {
        var points = ChemFixtures.Chem500;
        var options = new ButinaOptions { Cutoff = 0.6, Parallel = new ParallelismOptions { Ranks = 1 } };

        var one = TaylorButina.Run(points, options);
        var many = TaylorButina.Run(points, options with { Parallel = new ParallelismOptions { Ranks = ranks } });

        Assert.Equal(one.Assignments, many.Assignments);
        Assert.Equal(one.Centroids, many.Centroids);
        Assert.Equal(one.Medoids, many.Medoids);
        Assert.Equal(one.Members, many.Members);
        Assert.Equal(one.NeighbourCounts, many.NeighbourCounts);
        Assert.Equal(one.SimilaritiesComputed, many.SimilaritiesComputed);
        Assert.Equal(Bits(one.MeanSimilarityToCentroid), Bits(many.MeanSimilarityToCentroid));
        Assert.Equal(Bits(one.MeanPairwiseSimilarity), Bits(many.MeanPairwiseSimilarity));
    }

    [Fact]
    public void Run_Statistics_MatchTheirDefinitions()
    {
        var points = ChemFixtures.Chem500;

        var result = TaylorButina.Run(points, new ButinaOptions { Cutoff = 0.7, ExactStatisticsLimit = 20 });

        Assert.Contains(result.ClusterSizes, size => size > 20);
        Assert.Contains(result.ClusterSizes, size => size is > 2 and <= 20);
        for (var c = 0; c < result.Clusters; c++)
        {
            var members = result.MembersOf(c).ToArray();
            var centroid = result.Centroids[c];
            if (members.Length == 1)
            {
                Assert.Equal(1.0, result.MeanSimilarityToCentroid[c]);
                Assert.Equal(1.0, result.MeanPairwiseSimilarity[c]);
                Assert.Equal(centroid, result.Medoids[c]);
                continue;
            }

            var toCentroid = members.Skip(1).Average(m => Similarity(points, centroid, m));
            Assert.Equal(toCentroid, result.MeanSimilarityToCentroid[c], 1e-12);
            Assert.True(result.MeanSimilarityToCentroid[c] >= 1 - 0.7 - 1e-12);
            if (members.Length > 20)
            {
                Assert.True(double.IsNaN(result.MeanPairwiseSimilarity[c]));
                Assert.Equal(centroid, result.Medoids[c]);
                continue;
            }

            var totals = members.Select(a => members.Where(b => b != a).Sum(b => Similarity(points, a, b))).ToArray();
            var best = totals.Max();
            // Rounding may order totals that are equal as rationals; any member within it of the best is a medoid.
            Assert.True(totals[Array.IndexOf(members, result.Medoids[c])] >= best - 1e-12, $"cluster {c}'s medoid");
            var pairs = members.Length * (members.Length - 1) / 2.0;
            Assert.Equal(totals.Sum() / 2 / pairs, result.MeanPairwiseSimilarity[c], 1e-12);
        }
    }

    [Fact]
    public void Run_Chem500_ReportsProgressAndCounts()
    {
        var points = ChemFixtures.Chem500;
        var channel = Channel.CreateUnbounded<ClusteringProgress>();

        var result = TaylorButina.Run(points, new ButinaOptions(), channel.Writer);

        Assert.True(channel.Reader.TryRead(out var first));
        Assert.Equal("butina", first.Algorithm);
        Assert.Equal(points.Count, result.ClusterSizes.Sum());
        Assert.Equal(result.NeighbourCounts.Sum() / 2, result.NeighbourPairs);
        Assert.InRange(result.SimilaritiesComputed, 1, (long)points.Count * (points.Count - 1) / 2);
    }

    [Theory]
    [InlineData(0.0)]
    [InlineData(1.0)]
    [InlineData(-0.2)]
    [InlineData(double.NaN)]
    public void Run_CutoffOutsideZeroOne_Throws(double cutoff)
    {
        var error = Assert.Throws<ClusteringInputException>(() => TaylorButina.Run(ChemFixtures.Chem500, new ButinaOptions { Cutoff = cutoff }));

        Assert.Contains("strictly between 0 and 1", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Run_CancelledToken_Throws()
    {
        using var cancellation = new CancellationTokenSource();
        cancellation.Cancel();

        Assert.ThrowsAny<OperationCanceledException>(() => TaylorButina.Run(ChemFixtures.Chem500, new ButinaOptions(), cancellationToken: cancellation.Token));
    }

    private static long[] Bits(double[] values) => [.. values.Select(BitConverter.DoubleToInt64Bits)];

    private static double Similarity(BinaryVectors points, int a, int b) => ChemFixtures.NaiveSimilarity(points.Fingerprint(a), points.Fingerprint(b));

    /// <summary>Butina as written in the papers, O(n²) with a bit-by-bit Tanimoto: the reference.</summary>
    private static (int[] NeighbourCounts, List<List<int>> Clusters) NaiveButina(double[,] distances, double cutoff)
    {
        var n = distances.GetLength(0);
        var neighbours = new List<int>[n];
        for (var i = 0; i < n; i++)
        {
            neighbours[i] = [];
            for (var j = 0; j < n; j++)
            {
                if (j != i && distances[i, j] <= cutoff)
                {
                    neighbours[i].Add(j);
                }
            }
        }

        var order = Enumerable.Range(0, n).OrderByDescending(i => neighbours[i].Count).ThenByDescending(i => i);
        var assigned = new bool[n];
        var clusters = new List<List<int>>();
        foreach (var centroid in order)
        {
            if (assigned[centroid])
            {
                continue;
            }

            var cluster = new List<int> { centroid };
            assigned[centroid] = true;
            foreach (var neighbour in neighbours[centroid].Where(j => !assigned[j]))
            {
                assigned[neighbour] = true;
                cluster.Add(neighbour);
            }

            clusters.Add(cluster);
        }

        return ([.. neighbours.Select(l => l.Count)], clusters);
    }
}
