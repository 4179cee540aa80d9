using Salsa.Clustering.Annealing;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Tests;

/// <summary>
/// The annealing's final Lloyd passes on fingerprints keep per-point distance bounds (Hamerly) and
/// skip the points whose centre cannot have changed, adding only what moved to the sums kept from the
/// last pass. Held here to the full pass over hundreds of centre moves, small and large: the same
/// assignments, and sums equal to the bit (unit weights make them whole numbers), each cluster's
/// Σ w·|x|² among them.
/// </summary>
public sealed class BoundedLloydTests
{
    [Fact]
    public void BoundedPasses_OverManyCentreMoves_AssignAndSumExactlyAsFullPasses()
    {
        var points = ChemFixtures.Chem500;
        var kernel = new BinaryKernel(points);
        const int K = 9;
        var centres = new CentreSet(points.Bits, K);
        var random = new Random(3);
        var rows = new double[K * points.Bits];
        for (var e = 0; e < rows.Length; e++)
        {
            rows[e] = random.NextDouble() * 0.2;
        }

        centres.Set(rows, K);
        var sums = new PassSums(centres.Kp, points.Bits);
        var full = new int[points.Count];
        var bounded = new int[points.Count];
        var bounds = new PointBounds(points.Count);
        var running = new double[sums.BoundedLloydLength];
        ClusteringKernels.LloydBounded(kernel, centres, null, 0, points.Count, running, bounded, bounds.Upper, bounds.Lower);
        var changes = 0.0;
        for (var move = 0; move < 300; move++)
        {
            // Most moves nudge every centre a little (late Lloyd passes), some throw one far (a split–merge move).
            var before = centres.ToRowMajor();
            var far = move % 10 == 0 ? random.Next(K) : -1;
            for (var c = 0; c < K; c++)
            {
                for (var j = 0; j < points.Bits; j++)
                {
                    var step = c == far ? random.NextDouble() - 0.5 : (random.NextDouble() - 0.5) * 0.01;
                    rows[c * points.Bits + j] = Math.Clamp(before[c * points.Bits + j] + step, 0, 1);
                }
            }

            centres.Set(rows, K);
            var shifts = new double[K];
            for (var c = 0; c < K; c++)
            {
                var moved = 0.0;
                for (var j = 0; j < points.Bits; j++)
                {
                    var d = rows[c * points.Bits + j] - before[c * points.Bits + j];
                    moved += d * d;
                }

                shifts[c] = Math.Sqrt(moved);
            }

            var fullSums = new double[sums.LloydLength];
            ClusteringKernels.LloydAssign(kernel, centres, 0, points.Count, fullSums, full, null);
            var delta = new double[sums.BoundedLloydLength];
            ClusteringKernels.LloydBounded(kernel, centres, shifts, 0, points.Count, delta, bounded, bounds.Upper, bounds.Lower);
            for (var e = 0; e < sums.BoundedLloydLength; e++)
            {
                running[e] += e == sums.Changed ? 0 : delta[e];
            }

            Assert.Equal(full, bounded);
            Assert.Equal(fullSums[..sums.Cost], running[..sums.Cost]);
            for (var c = 0; c < K; c++)
            {
                // Σ w·|x|² of each cluster's points (|x|² of a fingerprint is its bit count), from which the polish reads its costs.
                Assert.Equal(Enumerable.Range(0, points.Count).Where(i => full[i] == c).Sum(points.PopCount), running[sums.SquaredNorms(c)]);
            }
            changes += delta[sums.Changed];
        }

        Assert.True(changes > 0, "the moves changed some assignments");
    }
}
