using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Salsa.Clustering.Mds;

/// <summary>The embedding dimension as a type, so the kernels compile one loop per dimension.</summary>
internal interface IDimensions
{
    static abstract int Count { get; }
}

internal readonly struct TwoDimensions : IDimensions
{
    public static int Count => 2;
}

internal readonly struct ThreeDimensions : IDimensions
{
    public static int Count => 3;
}

/// <summary>One row of the Guttman transform: S = Σ_j s_ij, T = Σ_j s_ij x_j with s_ij = w_j δ_ij / d_ij, and the row's stress terms.</summary>
internal struct GuttmanRow
{
    public double S;
    public double T0;
    public double T1;
    public double T2;

    /// <summary>Σ_j w_j (d_ij − δ_ij)².</summary>
    public double Stress;

    /// <summary>Σ_j w_j δ_ij².</summary>
    public double Scale;
}

internal readonly record struct Centre(Vector<double> X0, Vector<double> X1, Vector<double> X2);

internal struct LaneSums
{
    public Vector<double> S;
    public Vector<double> T0;
    public Vector<double> T1;
    public Vector<double> T2;
    public Vector<double> Stress;
    public Vector<double> Scale;
}

/// <summary>
/// The O(n) inner loops of SMACOF and of the Torgerson start, vectorised along a row. Each row is
/// summed lane by lane in column order and the lanes folded in a fixed order, so a row's value never
/// depends on which rank computes it.
/// </summary>
internal static class SmacofKernels
{
    /// <summary>
    /// One row of B(X)·X and of the stress, for X in columns <paramref name="x0"/>, <paramref name="x1"/>,
    /// <paramref name="x2"/> (the last unused in 2-D). A pair at distance 0 adds nothing to S and T (the
    /// usual convention b_ij = 0 when d_ij = 0), only its δ² to the stress.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static GuttmanRow Guttman<TDimensions>(ReadOnlySpan<float> delta, ReadOnlySpan<double> weights, double[] x0, double[] x1, double[] x2, int row)
        where TDimensions : struct, IDimensions
    {
        var three = TDimensions.Count == 3;
        var n = delta.Length;
        var lanes = Vector<double>.Count;
        var centre = new Centre(new Vector<double>(x0[row]), new Vector<double>(x1[row]), three ? new Vector<double>(x2[row]) : Vector<double>.Zero);
        var sums = default(LaneSums);
        var j = 0;
        var wide = MemoryMarshal.Cast<float, Vector<float>>(delta);
        for (var v = 0; v < wide.Length; v++, j += 2 * lanes)
        {
            Vector.Widen(wide[v], out var low, out var high);
            Step<TDimensions>(ref sums, centre, low, weights, x0, x1, x2, j);
            Step<TDimensions>(ref sums, centre, high, weights, x0, x1, x2, j + lanes);
        }

        var result = new GuttmanRow
        {
            S = Vector.Sum(sums.S),
            T0 = Vector.Sum(sums.T0),
            T1 = Vector.Sum(sums.T1),
            T2 = Vector.Sum(sums.T2),
            Stress = Vector.Sum(sums.Stress),
            Scale = Vector.Sum(sums.Scale),
        };
        for (; j < n; j++)
        {
            double e0 = x0[row] - x0[j], e1 = x1[row] - x1[j], e2 = three ? x2[row] - x2[j] : 0;
            var distance = Math.Sqrt(e0 * e0 + e1 * e1 + e2 * e2);
            double w = weights[j], d = delta[j];
            var ratio = distance > 0 ? w * d / distance : 0;
            result.S += ratio;
            result.T0 += ratio * x0[j];
            result.T1 += ratio * x1[j];
            result.T2 += three ? ratio * x2[j] : 0;
            result.Stress += w * (distance - d) * (distance - d);
            result.Scale += w * d * d;
        }

        return result;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining | MethodImplOptions.AggressiveOptimization)]
    private static void Step<TDimensions>(ref LaneSums sums, in Centre centre, Vector<double> delta, ReadOnlySpan<double> weights, double[] x0, double[] x1, double[] x2, int at)
        where TDimensions : struct, IDimensions
    {
        var w = new Vector<double>(weights[at..]);
        var a0 = new Vector<double>(x0.AsSpan(at));
        var a1 = new Vector<double>(x1.AsSpan(at));
        var e0 = centre.X0 - a0;
        var e1 = centre.X1 - a1;
        var squared = e0 * e0 + e1 * e1;
        var a2 = Vector<double>.Zero;
        if (TDimensions.Count == 3)
        {
            a2 = new Vector<double>(x2.AsSpan(at));
            var e2 = centre.X2 - a2;
            squared += e2 * e2;
        }

        var distance = Vector.SquareRoot(squared);
        var wd = w * delta;
        var ratio = Vector.ConditionalSelect(Vector.GreaterThan(distance, Vector<double>.Zero), wd / distance, Vector<double>.Zero);
        sums.S += ratio;
        sums.T0 += ratio * a0;
        sums.T1 += ratio * a1;
        if (TDimensions.Count == 3)
        {
            sums.T2 += ratio * a2;
        }

        var miss = distance - delta;
        sums.Stress += w * miss * miss;
        sums.Scale += wd * delta;
    }

    /// <summary>Σ_j δ_ij² q_jk for every column k of Q (the O(n²) part of B·Q in the Torgerson start).</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public static void SquaredProducts(ReadOnlySpan<float> delta, double[][] q, Span<double> result)
    {
        var n = delta.Length;
        var lanes = Vector<double>.Count;
        Span<Vector<double>> sums = stackalloc Vector<double>[q.Length];
        sums.Clear();
        var j = 0;
        var wide = MemoryMarshal.Cast<float, Vector<float>>(delta);
        for (var v = 0; v < wide.Length; v++, j += 2 * lanes)
        {
            Vector.Widen(wide[v], out var low, out var high);
            var lowSquared = low * low;
            var highSquared = high * high;
            for (var k = 0; k < q.Length; k++)
            {
                sums[k] += lowSquared * new Vector<double>(q[k].AsSpan(j)) + highSquared * new Vector<double>(q[k].AsSpan(j + lanes));
            }
        }

        for (var k = 0; k < q.Length; k++)
        {
            result[k] = Vector.Sum(sums[k]);
        }

        for (; j < n; j++)
        {
            var squared = (double)delta[j] * delta[j];
            for (var k = 0; k < q.Length; k++)
            {
                result[k] += squared * q[k][j];
            }
        }
    }
}
