using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Salsa.Clustering.Parallel;

/// <summary>Vectorised log-sum-exp pieces of the annealing E-step.</summary>
internal static class SoftMax
{
    /// <summary>
    /// A centre whose term a_k − max lies below −<see cref="Reach"/> is left out: its responsibility,
    /// under e^−40 ≈ 4.2·10⁻¹⁸ of the nearest centre's, is below what double precision keeps in a sum
    /// that holds 1. A point's responsibilities then differ from the exact ones by at most
    /// K·4.2·10⁻¹⁸ each, and the exponential never reaches its underflow range.
    /// </summary>
    public const double Reach = 40;

    /// <summary>
    /// Replaces squared distances d_k by exp(a_k − max) with a_k = log m_k − d_k/T, but only for the
    /// centres within <see cref="Reach"/> of the largest term (a vector of them at a time); every other
    /// lane, and those with log m = −∞ (unused or padding), becomes 0. Subtracting the maximum keeps one
    /// term equal to 1, so a point far from every centre at any temperature still has all its weight. Their indices go to <paramref name="within"/> in increasing order; returns
    /// how many. At all but the highest temperatures a point has a few such centres whatever K is.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int ExponentiateWithin(Span<double> distances, ReadOnlySpan<double> logMass, double inverseT, Span<int> within, out double max, out double sum)
    {
        var a = MemoryMarshal.Cast<double, Vector<double>>(distances);
        var m = MemoryMarshal.Cast<double, Vector<double>>(logMass[..distances.Length]);
        var scale = new Vector<double>(inverseT);
        var top = new Vector<double>(double.NegativeInfinity);
        for (var v = 0; v < a.Length; v++)
        {
            a[v] = m[v] - a[v] * scale;
            top = Vector.Max(top, a[v]);
        }

        var peak = double.NegativeInfinity;
        for (var lane = 0; lane < Vector<double>.Count; lane++)
        {
            peak = Math.Max(peak, top[lane]);
        }

        var shift = new Vector<double>(peak);
        var floor = new Vector<double>(peak - Reach);
        // Lanes out of reach are clamped before the exponential, whose result they do not keep: an
        // argument below about −708 sends Vector.Exp to a slow per-lane path (and −∞ would too).
        var lowest = new Vector<double>(-Reach - 1);
        var total = Vector<double>.Zero;
        var count = 0;
        for (var v = 0; v < a.Length; v++)
        {
            var near = Vector.GreaterThanOrEqual(a[v], floor);
            if (near == Vector<long>.Zero)
            {
                a[v] = Vector<double>.Zero;
                continue;
            }

            var terms = Vector.ConditionalSelect(near, Vector.Exp(Vector.Max(a[v] - shift, lowest)), Vector<double>.Zero);
            a[v] = terms;
            total += terms;
            for (var lane = 0; lane < Vector<double>.Count; lane++)
            {
                if (near[lane] != 0)
                {
                    within[count++] = v * Vector<double>.Count + lane;
                }
            }
        }

        max = peak;
        sum = Vector.Sum(total);
        return count;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Scale(Span<double> values, double factor)
    {
        var v = MemoryMarshal.Cast<double, Vector<double>>(values);
        var f = new Vector<double>(factor);
        for (var i = 0; i < v.Length; i++)
        {
            v[i] *= f;
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Add(Span<double> accumulator, ReadOnlySpan<double> values)
    {
        var acc = MemoryMarshal.Cast<double, Vector<double>>(accumulator);
        var v = MemoryMarshal.Cast<double, Vector<double>>(values[..accumulator.Length]);
        for (var i = 0; i < acc.Length; i++)
        {
            acc[i] += v[i];
        }
    }
}
