using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Tests;

public sealed class KMeansTests
{
    [Fact]
    public void Run_GaussianMixture_FindsTheFiveCentres()
    {
        var (points, expected) = TestData.Gmm;

        var result = WeightedKMeans.Run(points, new KMeansOptions { Clusters = 5, Restarts = 5 });

        foreach (var centre in expected)
        {
            var nearest = Enumerable.Range(0, 5).Min(k =>
                Math.Sqrt(Math.Pow(result.Centres[2 * k] - centre[0], 2) + Math.Pow(result.Centres[2 * k + 1] - centre[1], 2)));
            Assert.True(nearest <= 0.15, $"nearest centre {nearest:F3} away");
        }
    }

    [Fact]
    public void Run_Restarts_ReportsTheLowestInertia()
    {
        var points = TestData.Indiana;

        var result = WeightedKMeans.Run(points, new KMeansOptions { Clusters = 12, Restarts = 4 });

        Assert.Equal(4, result.RestartInertias.Count);
        Assert.Equal(result.RestartInertias.Min(), result.Inertia);
        Assert.Equal(result.RestartInertias.ToList().IndexOf(result.RestartInertias.Min()), result.BestRestart);
    }

    [Fact]
    public void Run_InertiaMatchesTheAssignments()
    {
        var points = TestData.Indiana;

        var result = WeightedKMeans.Run(points, new KMeansOptions { Clusters = 6 });

        var inertia = 0.0;
        for (var i = 0; i < points.Count; i++)
        {
            var c = result.Assignments[i];
            var dx = points.Values[2 * i] - result.Centres[2 * c];
            var dy = points.Values[2 * i + 1] - result.Centres[2 * c + 1];
            inertia += points.Weights[i] * (dx * dx + dy * dy);
        }

        // The reported inertia is the assignment's under the centres before their last update: never lower.
        Assert.True(inertia <= result.Inertia * (1 + 1e-12));
        Assert.Equal(result.Inertia, inertia, result.Inertia * 1e-6);
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(4)]
    public void Run_AnyNumberOfRanks_BitIdenticalToOneRank(int ranks)
    {
        var points = TestData.Indiana;
        var options = new KMeansOptions { Clusters = 10, Restarts = 2, Parallel = new ParallelismOptions { Ranks = 1, BlockSize = 256 } };

        var one = WeightedKMeans.Run(points, options);
        var many = WeightedKMeans.Run(points, options with { Parallel = options.Parallel with { Ranks = ranks } });

        Assert.Equal(one.Centres.Select(BitConverter.DoubleToInt64Bits), many.Centres.Select(BitConverter.DoubleToInt64Bits));
        Assert.Equal(one.Assignments, many.Assignments);
        Assert.Equal(BitConverter.DoubleToInt64Bits(one.Inertia), BitConverter.DoubleToInt64Bits(many.Inertia));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(5)]
    public void Seed_AnyNumberOfRanks_BitIdenticalToOneRank(int ranks)
    {
        // Indiana is small enough for rank 0 to seed alone; 60,000 points are seeded by every rank.
        foreach (var points in new[] { TestData.Indiana, Scattered(60_000) })
        {
            foreach (var k in new[] { 1, 7, 40 })
            {
                var options = new KMeansOptions { Clusters = k, Seed = 11, Parallel = new ParallelismOptions { Ranks = 1, BlockSize = 512 } };

                var one = WeightedKMeans.Seed(points, options);
                var many = WeightedKMeans.Seed(points, options with { Parallel = options.Parallel with { Ranks = ranks } });

                Assert.Equal(k * 2, one.Length);
                Assert.Equal(one.Select(BitConverter.DoubleToInt64Bits), many.Select(BitConverter.DoubleToInt64Bits));
            }
        }
    }

    [Fact]
    public void Seed_IsWhereTheRunStarts()
    {
        var points = TestData.Indiana;
        var options = new KMeansOptions { Clusters = 9, Seed = 3, MaxIterations = 1 };

        var seeds = WeightedKMeans.Seed(points, options);
        var run = WeightedKMeans.Run(points, options);

        // One Lloyd iteration from the seeds: the inertia it reports is the seeds' cost.
        Assert.Equal(Cost(points, seeds), run.Inertia, run.Inertia * 1e-12);
    }

    [Fact]
    public void Seed_Gmm_PutsACentreInEveryComponent()
    {
        var (points, expected) = TestData.Gmm;
        var greedyMisses = 0;
        var classicMisses = 0;
        var (greedyCost, classicCost) = (0.0, 0.0);
        for (var seed = 1; seed <= 50; seed++)
        {
            var greedy = WeightedKMeans.Seed(points, new KMeansOptions { Clusters = 5, Seed = seed });
            var classic = WeightedKMeans.Seed(points, new KMeansOptions { Clusters = 5, Seed = seed, SeedingTrials = 1 });
            greedyMisses += Components(greedy) < 5 ? 1 : 0;
            classicMisses += Components(classic) < 5 ? 1 : 0;
            greedyCost += Cost(points, greedy);
            classicCost += Cost(points, classic);
        }

        // Drawing one candidate per centre often puts two in one component (26 of these 50 seeds);
        // keeping the best of 2 + ⌊ln 5⌋ = 3 draws rarely does (5 of 50), and costs about half as much.
        var counts = $"greedy missed a component {greedyMisses} times, classic {classicMisses}; costs {greedyCost:E4} and {classicCost:E4}";
        Assert.True(greedyMisses <= 5 && greedyMisses * 4 <= classicMisses, counts);
        Assert.True(greedyCost < 0.7 * classicCost, counts);

        int Components(double[] seeds) => Enumerable.Range(0, 5)
            .Select(c => Enumerable.Range(0, expected.Length).MinBy(g => Math.Pow(seeds[2 * c] - expected[g][0], 2) + Math.Pow(seeds[2 * c + 1] - expected[g][1], 2)))
            .Distinct().Count();
    }

    [Theory]
    [InlineData(0)]
    [InlineData(-3)]
    public void Run_SeedingTrialsBelowOne_Throws(int trials)
    {
        var error = Assert.Throws<ClusteringInputException>(() => WeightedKMeans.Run(TestData.Gmm.Points, new KMeansOptions { Clusters = 3, SeedingTrials = trials }));

        Assert.Contains("SeedingTrials", error.Message, StringComparison.OrdinalIgnoreCase);
    }

    [Fact]
    public void Run_BinaryAndDenseKernels_AgreeOnFingerprints()
    {
        var binary = TestData.Ecfp(300);
        var options = new KMeansOptions { Clusters = 6, Restarts = 2 };

        var fromBits = WeightedKMeans.Run(binary, options);
        var fromDense = WeightedKMeans.Run(binary.ToDense(), options);

        Assert.Equal(fromDense.Assignments, fromBits.Assignments);
        Assert.Equal(fromDense.Inertia, fromBits.Inertia, fromDense.Inertia * 1e-9);
    }

    [Fact]
    public void Run_DuplicatePointsAndMoreClustersThanDistinctValues_RepairsEmptyClusters()
    {
        var points = new DenseVectors([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 5, 5], 2);

        var result = WeightedKMeans.Run(points, new KMeansOptions { Clusters = 4 });

        Assert.Equal(6, result.ClusterSizes.Sum());
        Assert.All(result.Centres, c => Assert.True(double.IsFinite(c)));
        Assert.Equal(0, result.Inertia, 9);
    }

    [Fact]
    public void Run_KLargerThanThePoints_Throws()
    {
        var points = new DenseVectors([0, 0, 1, 1], 2);

        var error = Assert.Throws<ClusteringInputException>(() => WeightedKMeans.Run(points, new KMeansOptions { Clusters = 3 }));

        Assert.Contains("clusters (K) must be between 1 and the number of points (2)", error.Message, StringComparison.Ordinal);
    }

    /// <summary><paramref name="count"/> weighted points around 30 random places, from a fixed seed.</summary>
    private static DenseVectors Scattered(int count)
    {
        var random = new Random(5);
        var places = Enumerable.Range(0, 30).Select(_ => (X: random.NextDouble() * 1000, Y: random.NextDouble() * 1000)).ToArray();
        var values = new double[2 * count];
        var weights = new double[count];
        for (var i = 0; i < count; i++)
        {
            var (x, y) = places[random.Next(places.Length)];
            values[2 * i] = x + random.NextDouble() * 40 - 20;
            values[2 * i + 1] = y + random.NextDouble() * 40 - 20;
            weights[i] = random.Next(0, 50);
        }

        return new DenseVectors(values, 2, weights);
    }

    /// <summary>Σ w·min |x − c|² over the centres, written out.</summary>
    private static double Cost(DenseVectors points, double[] centres)
    {
        var cost = 0.0;
        for (var i = 0; i < points.Count; i++)
        {
            var nearest = double.PositiveInfinity;
            for (var c = 0; c < centres.Length / 2; c++)
            {
                var (dx, dy) = (points.Values[2 * i] - centres[2 * c], points.Values[2 * i + 1] - centres[2 * c + 1]);
                nearest = Math.Min(nearest, dx * dx + dy * dy);
            }

            cost += points.Weights[i] * nearest;
        }

        return cost;
    }
}
