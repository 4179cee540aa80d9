using System.Runtime.CompilerServices;
using System.Numerics;
using System.Runtime.InteropServices;

namespace Salsa.Clustering.Parallel;

/// <summary>
/// The two inner loops every clustering step runs over a block of points, shared by the algorithms
/// and by the benchmarks that measure them (so the figures are of the code that runs).
/// </summary>
internal static class ClusteringKernels
{
    // Points per centre window: a county or two of census block groups, small enough that the window
    // holds a few centres, large enough that choosing them costs little beside the points' work.
    private const int WindowPoints = 128;

    /// <summary>
    /// Annealing E-step: per point, log-sum-exp of log m_k − d_k/T (no weight is lost however cold or
    /// far the point), then mass, centre numerators, Σ w·log Z and Σ w·max p into the partial. Only
    /// the block's <see cref="CentreWindow"/> is evaluated, and of it only the terms within
    /// <see cref="SoftMax.Reach"/> are exponentiated and accumulated.
    /// </summary>
    public static void AnnealingEStep<TKernel>(in TKernel kernel, CentreSet centres, double[] logMass, double inverseT, int start, int end, Span<double> partial)
        where TKernel : struct, IPointKernel
    {
        for (var first = start; first < end; first += WindowPoints)
        {
            AnnealingEStepWindow(kernel, centres, logMass, inverseT, first, Math.Min(end, first + WindowPoints), partial);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void AnnealingEStepWindow<TKernel>(in TKernel kernel, CentreSet centres, double[] logMass, double inverseT, int start, int end, Span<double> partial)
        where TKernel : struct, IPointKernel
    {
        var kp = centres.Kp;
        var d = kernel.Dimension;
        var window = CentreWindow.ForSoftMax(kernel, centres, logMass, inverseT, start, end);
        // Only the window's centres, padded to the vector width; the padding lanes have log mass −∞.
        Span<double> a = stackalloc double[CentreSet.Pad(window.K)];
        Span<int> within = stackalloc int[a.Length];
        var centresT = window.Transposed;
        var norms = window.Norms;
        var windowLogMass = window.LogMass[..a.Length];
        var stride = window.Stride;
        var sums = new PassSums(kp, d);
        var mass = partial[..kp];
        var numerators = partial.Slice(sums.Sum(0, 0), d * kp);
        ref var logZSum = ref partial[sums.LogPartition];
        ref var hardSum = ref partial[sums.Hardness];
        ref var evaluated = ref partial[sums.Evaluated];
        ref var pairs = ref partial[sums.Pairs];
        for (var i = start; i < end; i++)
        {
            var w = kernel.Weight(i);
            if (w == 0)
            {
                continue;
            }

            kernel.SquaredDistances(i, centresT, norms, stride, a);
            var near = SoftMax.ExponentiateWithin(a, windowLogMass, inverseT, within, out var max, out var sum);
            // One centre in reach (most points, once cold): log 1 = 0 without calling the logarithm.
            logZSum += w * (sum == 1 ? max : max + Math.Log(sum));
            hardSum += w / sum;
            evaluated += window.K;
            pairs += centres.K;
            var scale = w / sum;
            if (window.All && near * 4 > a.Length)
            {
                // Many centres in reach (high temperature): whole vectors; the lanes out of reach add 0.
                SoftMax.Scale(a, scale);
                SoftMax.Add(mass[..a.Length], a);
                kernel.Accumulate(i, a, numerators, kp);
                continue;
            }

            // The same products and sums, for the centres in reach only.
            foreach (var p in within[..near])
            {
                var c = window.Centre(p);
                var r = a[p] * scale;
                mass[c] += r;
                kernel.AccumulateOne(i, c, r, numerators, kp);
            }
        }
    }

    /// <summary>
    /// Lloyd assignment: per point, the nearest of the first K centres (ties to the lowest index),
    /// then weight, coordinate sums, w·d² and the count of changed assignments into the partial.
    /// <paramref name="assignments"/> and <paramref name="nearest"/> (optional) are updated in place.
    /// Only the block's <see cref="CentreWindow"/> is searched: the same centre and distance.
    /// </summary>
    public static void LloydAssign<TKernel>(in TKernel kernel, CentreSet centres, int start, int end, Span<double> partial, int[] assignments, double[]? nearest)
        where TKernel : struct, IPointKernel
    {
        for (var first = start; first < end; first += WindowPoints)
        {
            LloydAssignWindow(kernel, centres, first, Math.Min(end, first + WindowPoints), partial, assignments, nearest);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void LloydAssignWindow<TKernel>(in TKernel kernel, CentreSet centres, int start, int end, Span<double> partial, int[] assignments, double[]? nearest)
        where TKernel : struct, IPointKernel
    {
        var kp = centres.Kp;
        var d = kernel.Dimension;
        var window = CentreWindow.ForNearest(kernel, centres, start, end);
        Span<double> distance = stackalloc double[CentreSet.Pad(window.K)];
        var centresT = window.Transposed;
        var norms = window.Norms;
        var stride = window.Stride;
        var sums = new PassSums(kp, d);
        var numerators = partial.Slice(sums.Sum(0, 0), d * kp);
        ref var cost = ref partial[sums.Cost];
        ref var changed = ref partial[sums.Changed];
        for (var i = start; i < end; i++)
        {
            kernel.SquaredDistances(i, centresT, norms, stride, distance);
            var position = Nearest(distance, window.K);
            var best = window.Centre(position);
            var w = kernel.Weight(i);
            if (nearest is not null)
            {
                nearest[i] = distance[position];
            }

            partial[best] += w;
            kernel.AccumulateOne(i, best, w, numerators, kp);
            cost += w * distance[position];
            if (assignments[i] != best)
            {
                changed += 1;
                assignments[i] = best;
            }
        }
    }

    /// <summary>
    /// The nearest of the first <paramref name="k"/> centres by squared distance, ties to the lowest
    /// index: each lane keeps the first minimum of its own centres, then the lanes are compared (the
    /// smallest distance, and of equal ones the lowest index) — the same answer as a scan in order.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
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
