using System.Numerics;
using System.Runtime.CompilerServices;
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

    // A point keeps its centre unseen only when its bounds separate by more than this: the bounds are
    // square roots of distances computed as |x|² − 2x·y + |y|² (absolute rounding ~10⁻¹³ in the squares,
    // up to ~3·10⁻⁷ in a root near 0), so the skipped points are exactly those a full pass would keep.
    private const double BoundMargin = 1e-6;

    /// <summary>
    /// A Lloyd pass with Hamerly's bounds: per point an upper bound on the distance to its own centre
    /// and a lower bound on the distance to any other. With the centres moved by <paramref name="shifts"/>
    /// since the bounds were set, a point whose bounds still separate keeps its centre without a
    /// distance computed; the others are assigned as <see cref="LloydAssign"/> assigns them (the same
    /// nearest centre) and their bounds set anew. The partial holds what moved — weight and sums taken
    /// from a point's old centre and given to its new one, with its w·|x|² — and the count of points that
    /// moved; with <paramref name="shifts"/> null every point is computed and the partial holds the whole
    /// sums (<see cref="PassSums.BoundedLloydLength"/>).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static void LloydBounded<TKernel>(in TKernel kernel, CentreSet centres, double[]? shifts, int start, int end, Span<double> partial, int[] assignments, double[] upper, double[] lower)
        where TKernel : struct, IPointKernel
    {
        var (kp, k, d) = (centres.Kp, centres.K, kernel.Dimension);
        Span<double> distance = stackalloc double[kp];
        var sums = new PassSums(kp, d);
        var numerators = partial.Slice(sums.Sum(0, 0), d * kp);
        var squaredNorms = partial.Slice(sums.SquaredNorms(0), kp);
        ref var changed = ref partial[sums.Changed];
        var (largest, secondLargest, largestCentre) = (0.0, 0.0, -1);
        for (var c = 0; shifts is not null && c < k; c++)
        {
            if (shifts[c] > largest)
            {
                (secondLargest, largest, largestCentre) = (largest, shifts[c], c);
            }
            else if (shifts[c] > secondLargest)
            {
                secondLargest = shifts[c];
            }
        }

        for (var i = start; i < end; i++)
        {
            var own = assignments[i];
            if (shifts is not null)
            {
                // Triangle inequality: the own centre came at most its shift nearer or farther, any other at most the largest other shift.
                var near = upper[i] + shifts[own];
                var far = lower[i] - (own == largestCentre ? secondLargest : largest);
                (upper[i], lower[i]) = (near, far);
                if (near + BoundMargin < far)
                {
                    continue;
                }
            }

            kernel.SquaredDistances(i, centres.Transposed, centres.Norms, kp, distance);
            var best = Nearest(distance, k);
            var next = double.PositiveInfinity;
            for (var c = 0; c < k; c++)
            {
                next = c == best ? next : Math.Min(next, distance[c]);
            }

            (upper[i], lower[i]) = (Math.Sqrt(distance[best]), Math.Sqrt(next));
            var w = kernel.Weight(i);
            if (shifts is null)
            {
                partial[best] += w;
                kernel.AccumulateOne(i, best, w, numerators, kp);
                squaredNorms[best] += w * kernel.SquaredNorm(i);
            }
            else if (best != own)
            {
                var norm = w * kernel.SquaredNorm(i);
                (partial[own], partial[best]) = (partial[own] - w, partial[best] + w);
                (squaredNorms[own], squaredNorms[best]) = (squaredNorms[own] - norm, squaredNorms[best] + norm);
                kernel.AccumulateOne(i, own, -w, numerators, kp);
                kernel.AccumulateOne(i, best, w, numerators, kp);
            }

            if (best != own)
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
