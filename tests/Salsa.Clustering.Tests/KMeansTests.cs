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
}
