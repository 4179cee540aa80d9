using Salsa.Clustering.Annealing;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Tests;

/// <summary>
/// The E-step and the Lloyd step evaluate only the centres a block of points can reach (its
/// <see cref="CentreWindow"/>) and exponentiate only the terms within <see cref="SoftMax.Reach"/>.
/// These tests hold them to the dense computation, written out here pair by pair.
/// </summary>
public sealed class SparseResponsibilitiesTests
{
    // What the docs state: an E-step's sums agree with the dense computation to this relative error.
    private const double StatedTolerance = 1e-12;

    public static TheoryData<double> Temperatures => [1e6, 1e5, 1e4, 1e3, 1e2, 10, 1, 0.01];

    [Theory]
    [MemberData(nameof(Temperatures))]
    public void EStep_IndianaAt20Centres_SumsEqualTheDenseStepWithinTheStatedTolerance(double temperature)
    {
        var points = TestData.Indiana;
        var (centres, logMass) = CentresOf(points, 20);
        var length = new PassSums(centres.Kp, 2).EStepLength;
        var sparse = new double[length];
        foreach (var (start, end) in Blocks(points.Count, 960))
        {
            ClusteringKernels.AnnealingEStep(new DenseKernel(points), centres, logMass, 1 / temperature, start, end, sparse);
        }

        var dense = DenseEStep(points, centres, logMass, temperature);

        // Masses and hardness against the total weight, numerators against it times the largest
        // coordinate, Σ w·log Z against itself: what a term out of reach can amount to is relative to
        // the whole, not to a far cluster's own tiny mass.
        var w = points.TotalWeight;
        var extent = points.Values.Max(Math.Abs);
        for (var i = 0; i < centres.Kp * 3 + 2; i++)
        {
            var scale = i < centres.Kp || i == centres.Kp * 3 + 1 ? w : i < centres.Kp * 3 ? w * extent : Math.Max(Math.Abs(dense[i]), w);
            Assert.True(Math.Abs(sparse[i] - dense[i]) <= StatedTolerance * scale, $"sum {i} at T = {temperature}: sparse {sparse[i]:R}, dense {dense[i]:R}");
        }

        Assert.All(sparse, v => Assert.True(double.IsFinite(v)));
    }

    [Fact]
    public void EStep_NationalCensusAt100Centres_EvaluatesFewPairsWhenColdAndAllWhenHot()
    {
        // Block groups are stored by state and county, so a window of them covers a small area.
        var points = TestData.Census(Salsa.DataFiles.CensusBlockGroups.NationalPath);
        var (centres, logMass) = CentresOf(points, 100);
        double Share(double temperature)
        {
            var sums = new double[new PassSums(centres.Kp, 2).EStepLength];
            foreach (var (start, end) in Blocks(points.Count, 960))
            {
                ClusteringKernels.AnnealingEStep(new DenseKernel(points), centres, logMass, 1 / temperature, start, end, sums);
            }

            return sums[centres.Kp * 3 + 2] / sums[centres.Kp * 3 + 3];
        }

        Assert.Equal(1, Share(1e9));
        var cold = Share(10);
        Assert.True(cold < 0.15, $"at T = 10 km² a window of block groups reaches {cold:P0} of 100 centres");
    }

    [Fact]
    public void LloydAssign_Windowed_SameCentresDistancesAndSumsAsAFullScan()
    {
        var points = TestData.Indiana;
        var (centres, _) = CentresOf(points, 20);
        var length = new PassSums(centres.Kp, 2).LloydLength;
        var windowed = new double[length];
        var assignments = new int[points.Count];
        var nearest = new double[points.Count];
        foreach (var (start, end) in Blocks(points.Count, 960))
        {
            ClusteringKernels.LloydAssign(new DenseKernel(points), centres, start, end, windowed, assignments, nearest);
        }

        var full = new double[length];
        for (var i = 0; i < points.Count; i++)
        {
            var x = points.Point(i);
            var (best, distance) = (0, double.PositiveInfinity);
            for (var c = 0; c < centres.K; c++)
            {
                var (e0, e1) = (x[0] - centres[c, 0], x[1] - centres[c, 1]);
                var d = e0 * e0 + e1 * e1;
                if (d < distance)
                {
                    (best, distance) = (c, d);
                }
            }

            Assert.Equal(best, assignments[i]);
            Assert.Equal(BitConverter.DoubleToInt64Bits(distance), BitConverter.DoubleToInt64Bits(nearest[i]));
        }

        // The block's sums come from the same assignments and distances in the same order.
        var again = new double[length];
        foreach (var (start, end) in Blocks(points.Count, 960))
        {
            ClusteringKernels.LloydAssign(new DenseKernel(points), centres, start, end, again, assignments, null);
        }

        Assert.Equal(0, again[centres.Kp * 3 + 1]);
        Assert.Equal(windowed[..(centres.Kp * 3 + 1)].Select(BitConverter.DoubleToInt64Bits), again[..(centres.Kp * 3 + 1)].Select(BitConverter.DoubleToInt64Bits));
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    public void Run_IndianaAtKmax20_BitIdenticalForAnyNumberOfRanksWithWindowsInUse(int ranks)
    {
        var points = TestData.Indiana;
        var options = new AnnealingOptions { MaxClusters = 20, Parallel = new ParallelismOptions { Ranks = 1 } };

        var one = DeterministicAnnealing.Run(points, options);
        var many = DeterministicAnnealing.Run(points, options with { Parallel = new ParallelismOptions { Ranks = ranks } });

        Assert.True(one.EvaluatedShare < 0.9, $"the windows left out {1 - one.EvaluatedShare:P0} of the pairs");
        Assert.Equal(one.Centres.Select(BitConverter.DoubleToInt64Bits), many.Centres.Select(BitConverter.DoubleToInt64Bits));
        Assert.Equal(one.Assignments, many.Assignments);
        Assert.Equal(one.Trajectory.Select(s => BitConverter.DoubleToInt64Bits(s.FreeEnergy)), many.Trajectory.Select(s => BitConverter.DoubleToInt64Bits(s.FreeEnergy)));
        Assert.Equal(one.EvaluatedShare, many.EvaluatedShare);
    }

    /// <summary>The E-step over every pair: a_k = log m_k − d_k/T, exp(a_k − max) for all K, in plain loops.</summary>
    private static double[] DenseEStep(DenseVectors points, CentreSet centres, double[] logMass, double temperature)
    {
        var kp = centres.Kp;
        var sums = new double[new PassSums(kp, 2).EStepLength];
        var a = new double[centres.K];
        for (var i = 0; i < points.Count; i++)
        {
            var w = points.Weights[i];
            if (w == 0)
            {
                continue;
            }

            var x = points.Point(i);
            for (var c = 0; c < centres.K; c++)
            {
                var (e0, e1) = (x[0] - centres[c, 0], x[1] - centres[c, 1]);
                a[c] = logMass[c] - (e0 * e0 + e1 * e1) / temperature;
            }

            var max = a.Max();
            var sum = a.Sum(v => Math.Exp(v - max));
            sums[kp * 3] += w * (max + Math.Log(sum));
            sums[kp * 3 + 1] += w / sum;
            for (var c = 0; c < centres.K; c++)
            {
                var r = w * Math.Exp(a[c] - max) / sum;
                sums[c] += r;
                sums[kp + c] += r * x[0];
                sums[2 * kp + c] += r * x[1];
            }
        }

        return sums;
    }

    /// <summary>k-means centres of the data (a realistic spread) and masses from their weights.</summary>
    private static (CentreSet Centres, double[] LogMass) CentresOf(DenseVectors points, int k)
    {
        var kmeans = WeightedKMeans.Run(points, new KMeansOptions { Clusters = k, Seed = 3, MaxIterations = 30 });
        var centres = new CentreSet(2, k);
        centres.Set(kmeans.Centres, k);
        var logMass = new double[centres.Kp];
        Array.Fill(logMass, double.NegativeInfinity);
        for (var c = 0; c < k; c++)
        {
            logMass[c] = Math.Log(Math.Max(kmeans.ClusterWeights[c], 1) / points.TotalWeight);
        }

        return (centres, logMass);
    }

    private static IEnumerable<(int Start, int End)> Blocks(int count, int size)
    {
        for (var start = 0; start < count; start += size)
        {
            yield return (start, Math.Min(count, start + size));
        }
    }
}
