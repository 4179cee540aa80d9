using System.Numerics;
using System.Runtime.InteropServices;

namespace Salsa.Clustering.Parallel;

/// <summary>
/// The two inner loops every clustering step runs over a block of points, shared by the algorithms
/// and by the benchmarks that measure them (so the figures are of the code that runs).
/// </summary>
internal static class ClusteringKernels
{
    /// <summary>Layout of an E-step partial: masses [Kp], numerators [D·Kp], Σ w·log Z, Σ w·max p.</summary>
    public static int AnnealingLength(int kp, int dimension) => kp * (dimension + 1) + 2;

    /// <summary>Layout of a Lloyd partial: weights [Kp], sums [D·Kp], inertia, changed assignments.</summary>
    public static int LloydLength(int kp, int dimension) => kp * (dimension + 1) + 2;

    /// <summary>
    /// Annealing E-step: per point, log-sum-exp of log m_k − d_k/T (no weight is lost however cold or
    /// far the point), then mass, centre numerators, Σ w·log Z and Σ w·max p into the partial.
    /// </summary>
    public static void AnnealingEStep<TKernel>(in TKernel kernel, CentreSet centres, double[] logMass, double inverseT, int start, int end, Span<double> partial)
        where TKernel : struct, IPointKernel
    {
        var kp = centres.Kp;
        var d = kernel.Dimension;
        // Only the centres in use, padded to the vector width; the lanes beyond K have log mass −∞
        // and would add exact zeros, so the result is the same bits at a cost proportional to K.
        Span<double> a = stackalloc double[CentreSet.Pad(centres.K)];
        Span<int> within = stackalloc int[a.Length];
        var mass = partial[..a.Length];
        var numerators = partial.Slice(kp, d * kp);
        ref var logZSum = ref partial[kp * (d + 1)];
        ref var hardSum = ref partial[kp * (d + 1) + 1];
        for (var i = start; i < end; i++)
        {
            var w = kernel.Weight(i);
            if (w == 0)
            {
                continue;
            }

            kernel.SquaredDistances(i, centres.Transposed, centres.Norms, kp, a);
            var near = SoftMax.ExponentiateWithin(a, logMass, inverseT, within, out var max, out var sum);
            logZSum += w * (max + Math.Log(sum));
            hardSum += w / sum;
            var scale = w / sum;
            if (near * 4 > a.Length)
            {
                // Many centres in reach (high temperature): whole vectors; the lanes out of reach add 0.
                SoftMax.Scale(a, scale);
                SoftMax.Add(mass, a);
                kernel.Accumulate(i, a, numerators, kp);
                continue;
            }

            // The same products and sums, for the few centres in reach only.
            foreach (var c in within[..near])
            {
                var r = a[c] * scale;
                mass[c] += r;
                kernel.AccumulateOne(i, c, r, numerators, kp);
            }
        }
    }

    /// <summary>
    /// Lloyd assignment: per point, the nearest of the first K centres (ties to the lowest index),
    /// then weight, coordinate sums, w·d² and the count of changed assignments into the partial.
    /// <paramref name="assignments"/> and <paramref name="nearest"/> (optional) are updated in place.
    /// </summary>
    public static void LloydAssign<TKernel>(in TKernel kernel, CentreSet centres, int start, int end, Span<double> partial, int[] assignments, double[]? nearest)
        where TKernel : struct, IPointKernel
    {
        var kp = centres.Kp;
        var k = centres.K;
        var d = kernel.Dimension;
        Span<double> distance = stackalloc double[CentreSet.Pad(k)];
        var numerators = partial.Slice(kp, d * kp);
        for (var i = start; i < end; i++)
        {
            kernel.SquaredDistances(i, centres.Transposed, centres.Norms, kp, distance);
            var best = Nearest(distance, k);
            var w = kernel.Weight(i);
            if (nearest is not null)
            {
                nearest[i] = distance[best];
            }

            partial[best] += w;
            kernel.AccumulateOne(i, best, w, numerators, kp);
            partial[kp * (d + 1)] += w * distance[best];
            if (assignments[i] != best)
            {
                partial[kp * (d + 1) + 1] += 1;
                assignments[i] = best;
            }
        }
    }

    /// <summary>
    /// The nearest of the first <paramref name="k"/> centres by squared distance, ties to the lowest
    /// index: each lane keeps the first minimum of its own centres, then the lanes are compared (the
    /// smallest distance, and of equal ones the lowest index) — the same answer as a scan in order.
    /// </summary>
    public static int Nearest(ReadOnlySpan<double> distance, int k)
    {
        var width = Vector<double>.Count;
        var vectors = MemoryMarshal.Cast<double, Vector<double>>(distance[..CentreSet.Pad(k)]);
        var best = new Vector<double>(double.PositiveInfinity);
        var bestIndex = Vector<long>.Zero;
        var index = Vector<long>.Indices;
        var step = new Vector<long>(width);
        var inUse = new Vector<long>(k);
        for (var v = 0; v < vectors.Length; v++)
        {
            // Lanes past K (padding) never win.
            var closer = Vector.LessThan(vectors[v], best) & Vector.LessThan(index, inUse);
            best = Vector.ConditionalSelect(closer, vectors[v], best);
            bestIndex = Vector.ConditionalSelect(closer, index, bestIndex);
            index += step;
        }

        var nearest = bestIndex[0];
        var smallest = best[0];
        for (var lane = 1; lane < width; lane++)
        {
            if (best[lane] < smallest || (best[lane] == smallest && bestIndex[lane] < nearest))
            {
                (nearest, smallest) = (bestIndex[lane], best[lane]);
            }
        }

        return (int)nearest;
    }
}
