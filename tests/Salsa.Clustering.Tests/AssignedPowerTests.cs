using Salsa.Clustering.Annealing;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;

namespace Salsa.Clustering.Tests;

/// <summary>
/// The split–merge polish takes a cluster's principal axis at T = 0 from the points' assignments
/// (<see cref="PassKind.AssignedPower"/>) instead of their distances to every centre
/// (<see cref="PassKind.ScatterPower"/> at a cold temperature). Once a Lloyd pass has assigned the
/// points under the centres, both are the same products: the same bits, cluster by cluster (a point
/// exactly equidistant from two centres would differ: the cold softmax halves it, the assignment does not).
/// </summary>
public sealed class AssignedPowerTests
{
    [Fact]
    public void AssignedPower_AfterALloydPass_IsScatterPowerAtTZero_BitForBit()
    {
        var points = ChemFixtures.Chem500;
        var kernel = new BinaryKernel(points);
        const int K = 7;
        var centres = new CentreSet(points.Bits, K);
        // Centres as a Lloyd pass leaves them: means of groups of points (no point is equidistant from two).
        var rows = new double[K * points.Bits];
        var counts = new int[K];
        for (var i = 0; i < points.Count; i++)
        {
            counts[i % K]++;
            foreach (var bit in points.BitsOf(i))
            {
                rows[i % K * points.Bits + bit] += 1;
            }
        }

        for (var e = 0; e < rows.Length; e++)
        {
            rows[e] /= counts[e / points.Bits];
        }

        centres.Set(rows, K);
        var logMass = new double[centres.Kp];
        Array.Fill(logMass, double.NegativeInfinity);
        Array.Fill(logMass, Math.Log(1.0 / K), 0, K);
        var sums = new PassSums(centres.Kp, points.Bits);
        var plan = Math.Max(sums.PowerLength, sums.LloydLength);
        var assignments = new int[points.Count];
        AnnealingPasses.Run(kernel, new PartitionPass(PassKind.Lloyd, sums.LloydLength, plan, null, centres, logMass), 0, points.Count, new double[plan], assignments);

        var random = new Random(5);
        var vectorsT = new double[points.Bits * centres.Kp];
        for (var e = 0; e < vectorsT.Length; e++)
        {
            vectorsT[e] = random.NextDouble() - 0.5;
        }

        var yDotV = new double[centres.Kp];
        for (var c = 0; c < K; c++)
        {
            for (var j = 0; j < points.Bits; j++)
            {
                yDotV[c] += centres[c, j] * vectorsT[j * centres.Kp + c];
            }
        }

        var cold = new double[sums.PowerLength];
        AnnealingPasses.Run(kernel, new PartitionPass(PassKind.ScatterPower, sums.PowerLength, plan, null, centres, logMass)
        {
            InverseTemperature = 1e12, VectorsT = vectorsT, YDotV = yDotV,
        }, 0, points.Count, cold, assignments);
        var assigned = new double[sums.PowerLength];
        AnnealingPasses.Run(kernel, new PartitionPass(PassKind.AssignedPower, sums.PowerLength, plan, null, centres, logMass)
        {
            VectorsT = vectorsT, YDotV = yDotV,
        }, 0, points.Count, assigned, assignments);

        Assert.True(assigned.Skip(sums.PowerMass(0)).Take(K).All(m => m > 0), "every cluster has points");
        Assert.Equal(cold, assigned);

        // Asked for one cluster, its products are the same and the others are left out.
        var one = new double[sums.PowerLength];
        AnnealingPasses.Run(kernel, new PartitionPass(PassKind.AssignedPower, sums.PowerLength, plan, null, centres, logMass)
        {
            VectorsT = vectorsT, YDotV = yDotV, OnlyCluster = 3,
        }, 0, points.Count, one, assignments);
        for (var j = 0; j < points.Bits; j++)
        {
            Assert.Equal(cold[sums.Product(3, j)], one[sums.Product(3, j)]);
            Assert.Equal(0, one[sums.Product(2, j)]);
        }

        Assert.Equal(cold[sums.PowerMass(3)], one[sums.PowerMass(3)]);
    }
}
