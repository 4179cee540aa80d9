using System.Runtime.CompilerServices;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;

namespace Salsa.Clustering.Annealing;

/// <summary>
/// The inner loops of deterministic annealing, one per <see cref="PassKind"/>: each adds the
/// points <c>[start, end)</c> into a block's partial. The same code runs on a machine's ranks and on a
/// cluster's partitions.
/// </summary>
internal static class AnnealingPasses
{
    public static void Run<TKernel>(in TKernel kernel, PartitionPass pass, int start, int end, Span<double> partial, int[] assignments, PointBounds? bounds = null)
        where TKernel : struct, IPointKernel
    {
        var centres = pass.CentreSet;
        switch (pass.Kind)
        {
            case PassKind.Centroid:
                Centroid(kernel, start, end, partial);
                break;
            case PassKind.Spread:
                Spread(kernel, centres, start, end, partial);
                break;
            case PassKind.EStep:
                ClusteringKernels.AnnealingEStep(kernel, centres, pass.LogMass, pass.InverseTemperature, start, end, partial);
                break;
            case PassKind.Scatter:
                Scatter(kernel, centres, pass.LogMass, pass.InverseTemperature, start, end, partial);
                break;
            case PassKind.ScatterPower:
                ScatterPower(kernel, pass, start, end, partial);
                break;
            case PassKind.Lloyd:
                ClusteringKernels.LloydAssign(kernel, centres, start, end, partial, assignments, null);
                break;
            case PassKind.ClusterCosts:
                ClusterCosts(kernel, centres, start, end, partial);
                break;
            case PassKind.AssignedPower:
                AssignedPower(kernel, pass, start, end, partial, assignments);
                break;
            case PassKind.BoundedLloyd when bounds is not null:
                ClusteringKernels.LloydBounded(kernel, centres, pass.Shifts, start, end, partial, assignments, bounds.Upper, bounds.Lower);
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(pass), pass.Kind, "Not an annealing pass here (a bounded Lloyd pass needs the points' bounds, which only a machine's own points keep).");
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void Centroid<TKernel>(in TKernel kernel, int start, int end, Span<double> partial)
        where TKernel : struct, IPointKernel
    {
        var d = kernel.Dimension;
        for (var i = start; i < end; i++)
        {
            var w = kernel.Weight(i);
            kernel.AccumulateOne(i, 0, w, partial, 1);
            partial[d] += w;
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void Spread<TKernel>(in TKernel kernel, CentreSet centres, int start, int end, Span<double> partial)
        where TKernel : struct, IPointKernel
    {
        Span<double> distance = stackalloc double[centres.Kp];
        for (var i = start; i < end; i++)
        {
            kernel.SquaredDistances(i, centres.Transposed, centres.Norms, centres.Kp, distance);
            partial[0] += kernel.Weight(i) * distance[0];
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void Scatter<TKernel>(in TKernel kernel, CentreSet centres, double[] logMass, double inverseT, int start, int end, Span<double> partial)
        where TKernel : struct, IPointKernel
    {
        var kp = centres.Kp;
        var d2 = kernel.Dimension * kernel.Dimension;
        Span<double> a = stackalloc double[kp];
        Span<int> within = stackalloc int[kp];
        var sums = PassSums.Of(centres);
        var mass = partial[..kp];
        var scatter = partial.Slice(sums.Scatter(0, 0), centres.K * d2);
        for (var i = start; i < end; i++)
        {
            var w = kernel.Weight(i);
            if (w == 0)
            {
                continue;
            }

            kernel.SquaredDistances(i, centres.Transposed, centres.Norms, kp, a);
            SoftMax.ExponentiateWithin(a, logMass, inverseT, within, out _, out var sum);
            SoftMax.Scale(a, w / sum);
            SoftMax.Add(mass, a);
            kernel.AccumulateScatter(i, a, centres, scatter);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void ScatterPower<TKernel>(in TKernel kernel, PartitionPass pass, int start, int end, Span<double> partial)
        where TKernel : struct, IPointKernel
    {
        var centres = pass.CentreSet;
        var (kp, k, d) = (centres.Kp, centres.K, kernel.Dimension);
        var (vectorsT, yDotV, inverseT) = (pass.VectorsT!, pass.YDotV!, pass.InverseTemperature);
        Span<double> r = stackalloc double[kp];
        Span<double> dots = stackalloc double[kp];
        Span<int> within = stackalloc int[kp];
        var sums = new PassSums(kp, d);
        var rs = partial.Slice(sums.Projection(0), kp);
        var mass = partial.Slice(sums.PowerMass(0), kp);
        for (var i = start; i < end; i++)
        {
            var w = kernel.Weight(i);
            if (w == 0)
            {
                continue;
            }

            int near;
            if (inverseT == 0)
            {
                r.Clear();
                r[0] = w;
                (within[0], near) = (0, 1);
            }
            else
            {
                kernel.SquaredDistances(i, centres.Transposed, centres.Norms, kp, r);
                near = SoftMax.ExponentiateWithin(r, pass.LogMass, inverseT, within, out _, out var sum);
                SoftMax.Scale(r, w / sum);
            }

            if (near * 4 <= kp)
            {
                // Few clusters in reach (most points below the first splits; every point at T = 0): the
                // products of those clusters only — each lane's sums in the same order, and the lanes
                // left out would add 0.
                foreach (var c in within[..near])
                {
                    var coefficient = r[c] * (kernel.Dot(i, vectorsT, kp, c) - yDotV[c]);
                    kernel.AccumulateOne(i, c, coefficient, partial, kp);
                    rs[c] += coefficient;
                    mass[c] += r[c];
                }

                continue;
            }

            kernel.Dots(i, vectorsT, kp, dots);
            for (var c = 0; c < k; c++)
            {
                dots[c] = r[c] * (dots[c] - yDotV[c]);
            }

            kernel.Accumulate(i, dots, partial, kp);
            SoftMax.Add(rs, dots);
            SoftMax.Add(mass, r);
        }
    }

    /// <summary>
    /// <see cref="ScatterPower"/> at T = 0 from the assignments instead of the distances: there each
    /// point's one responsibility is its weight, in the cluster nearest to it — the cluster it is
    /// assigned to once a Lloyd pass has assigned it under these centres. The same products in the same
    /// order, without the distances to every centre (a point exactly equidistant from two centres, which
    /// the cold softmax would halve, goes to the lower one as Lloyd put it).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void AssignedPower<TKernel>(in TKernel kernel, PartitionPass pass, int start, int end, Span<double> partial, int[] assignments)
        where TKernel : struct, IPointKernel
    {
        var (kp, d) = (pass.Kp, kernel.Dimension);
        var (vectorsT, yDotV, only) = (pass.VectorsT!, pass.YDotV!, pass.OnlyCluster ?? -1);
        var sums = new PassSums(kp, d);
        var rs = partial.Slice(sums.Projection(0), kp);
        var mass = partial.Slice(sums.PowerMass(0), kp);
        for (var i = start; i < end; i++)
        {
            var c = assignments[i];
            var w = kernel.Weight(i);
            if (w == 0 || (only >= 0 && c != only))
            {
                continue;
            }

            var coefficient = w * (kernel.Dot(i, vectorsT, kp, c) - yDotV[c]);
            kernel.AccumulateOne(i, c, coefficient, partial, kp);
            rs[c] += coefficient;
            mass[c] += w;
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static void ClusterCosts<TKernel>(in TKernel kernel, CentreSet centres, int start, int end, Span<double> partial)
        where TKernel : struct, IPointKernel
    {
        var (kp, k) = (centres.Kp, centres.K);
        var sums = PassSums.Of(centres);
        Span<double> distance = stackalloc double[kp];
        for (var i = start; i < end; i++)
        {
            kernel.SquaredDistances(i, centres.Transposed, centres.Norms, kp, distance);
            var best = ClusteringKernels.Nearest(distance, k);
            var w = kernel.Weight(i);
            partial[sums.Mass(best)] += w;
            partial[sums.ClusterCost(best)] += w * distance[best];
        }
    }
}

/// <summary>Per point, Hamerly's bounds for a bounded Lloyd pass: distance to its own centre (at most) and to any other (at least).</summary>
internal sealed class PointBounds(int count)
{
    public double[] Upper { get; } = new double[count];

    public double[] Lower { get; } = new double[count];
}
