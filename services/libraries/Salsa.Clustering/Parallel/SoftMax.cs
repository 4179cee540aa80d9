using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Salsa.Clustering.Parallel;

/// <summary>Vectorised log-sum-exp pieces of the annealing E-step.</summary>
internal static class SoftMax
{
    /// <summary>
    /// Replaces squared distances d_k by exp(a_k − max) with a_k = log m_k − d_k/T, and returns max.
    /// Lanes with log m = −∞ (unused or padding) come out 0. Subtracting the maximum keeps one term
    /// equal to 1, so a point far from every centre at any temperature still has all its weight.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static double Exponentiate(Span<double> distances, ReadOnlySpan<double> logMass, double inverseT, out double sum)
    {
        var a = MemoryMarshal.Cast<double, Vector<double>>(distances);
        var m = MemoryMarshal.Cast<double, Vector<double>>(logMass[..distances.Length]);
        var scale = new Vector<double>(inverseT);
        var max = new Vector<double>(double.NegativeInfinity);
        for (var v = 0; v < a.Length; v++)
        {
            a[v] = m[v] - a[v] * scale;
            max = Vector.Max(max, a[v]);
        }

        var peak = double.NegativeInfinity;
        for (var lane = 0; lane < Vector<double>.Count; lane++)
        {
            peak = Math.Max(peak, max[lane]);
        }

        var shift = new Vector<double>(peak);
        var total = Vector<double>.Zero;
        for (var v = 0; v < a.Length; v++)
        {
            a[v] = Vector.Exp(a[v] - shift);
            total += a[v];
        }

        sum = Vector.Sum(total);
        return peak;
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
