using System.Runtime.CompilerServices;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.KMeans;

/// <summary>
/// The per-point arithmetic of greedy k-means++, shared by the machine run and the partitions so that
/// a grid of one partition draws the same points as the ranks of a machine: the same distances, mins
/// and sums in the same order.
/// </summary>
internal static class SeedingKernels
{
    /// <summary>
    /// For each candidate t of <paramref name="candidates"/>, Σ w·min(D², d²(x, candidate t)) over
    /// points [start, end), into <paramref name="potentials"/> (D² = <paramref name="nearest"/>; ∞
    /// before the first centre).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static void Potentials<TKernel>(in TKernel kernel, double[] nearest, int start, int end, CentreSet candidates, Span<double> potentials)
        where TKernel : struct, IPointKernel
    {
        Span<double> distances = stackalloc double[candidates.Kp];
        var trials = candidates.K;
        potentials[..trials].Clear();
        for (var i = start; i < end; i++)
        {
            kernel.SquaredDistances(i, candidates.Transposed, candidates.Norms, candidates.Kp, distances);
            var (w, d2) = (kernel.Weight(i), nearest[i]);
            for (var t = 0; t < trials; t++)
            {
                potentials[t] += w * Math.Min(d2, distances[t]);
            }
        }
    }

    /// <summary>D² ← min(D², d²(x, candidate <paramref name="chosen"/>)) over points [start, end): the D² the chosen candidate's potential summed.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static void Update<TKernel>(in TKernel kernel, double[] nearest, int start, int end, CentreSet candidates, int chosen)
        where TKernel : struct, IPointKernel
    {
        Span<double> distances = stackalloc double[candidates.Kp];
        for (var i = start; i < end; i++)
        {
            kernel.SquaredDistances(i, candidates.Transposed, candidates.Norms, candidates.Kp, distances);
            nearest[i] = Math.Min(nearest[i], distances[chosen]);
        }
    }

    /// <summary>Σ of each point's mass over [start, end): w before the first centre, w·D² after.</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static double Mass<TKernel>(in TKernel kernel, double[] nearest, int start, int end, bool first)
        where TKernel : struct, IPointKernel
    {
        var mass = 0.0;
        for (var i = start; i < end; i++)
        {
            mass += first ? kernel.Weight(i) : kernel.Weight(i) * nearest[i];
        }

        return mass;
    }

    /// <summary>
    /// The point of [start, end) the draw <paramref name="target"/> (within the block's mass) falls on:
    /// the walk of a cumulative sum, skipping points of no mass; the last point with mass if rounding
    /// leaves the target beyond them, <paramref name="start"/> if none has any.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static int Walk<TKernel>(in TKernel kernel, double[] nearest, int start, int end, bool first, double target)
        where TKernel : struct, IPointKernel
    {
        var last = start;
        for (var i = start; i < end; i++)
        {
            var m = first ? kernel.Weight(i) : kernel.Weight(i) * nearest[i];
            if (m > 0)
            {
                last = i;
                if (target < m)
                {
                    return i;
                }

                target -= m;
            }
        }

        return last;
    }

    /// <summary>The block a draw falls in, walking per-block masses in order, and the target left within it.</summary>
    public static (int Block, double Target) Block(ReadOnlySpan<double> blockMasses, int stride, int slot, double target)
    {
        var blocks = blockMasses.Length / stride;
        for (var b = 0; b < blocks; b++)
        {
            var mass = blockMasses[b * stride + slot];
            if (target < mass || b == blocks - 1)
            {
                return (b, target);
            }

            target -= mass;
        }

        return (0, target);
    }

    /// <summary>Per-block values summed in block order (every rank and partition adds them the same way).</summary>
    public static double Total(ReadOnlySpan<double> blockValues, int stride, int slot)
    {
        var total = 0.0;
        for (var b = slot; b < blockValues.Length; b += stride)
        {
            total += blockValues[b];
        }

        return total;
    }
}
