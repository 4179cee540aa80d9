using System.Numerics;
using System.Runtime.InteropServices;

namespace Salsa.Ccr;

/// <summary>
/// How reductions combine vectors: <c>accumulator ⊕= next</c>, applied to the ranks' contributions
/// in rank order 0, 1, …, P−1, so the result is the same bits whatever the timing.
/// </summary>
public sealed class ReduceOperation
{
    private readonly CombineVector _combine;

    private ReduceOperation(string name, CombineVector combine)
    {
        Name = name;
        _combine = combine;
    }

    /// <summary>Element-wise: combine <paramref name="next"/> into <paramref name="accumulator"/>.</summary>
    public delegate void CombineVector(Span<double> accumulator, ReadOnlySpan<double> next);

    public string Name { get; }

    public static ReduceOperation Sum { get; } = new("sum", static (acc, next) => Apply<AddOp>(acc, next));

    public static ReduceOperation Min { get; } = new("min", static (acc, next) => Apply<MinOp>(acc, next));

    public static ReduceOperation Max { get; } = new("max", static (acc, next) => Apply<MaxOp>(acc, next));

    /// <summary>A user-defined combination; it must be deterministic for results to be.</summary>
    public static ReduceOperation Custom(string name, CombineVector combine)
    {
        ArgumentNullException.ThrowIfNull(combine);
        return new ReduceOperation(name, combine);
    }

    internal void Combine(Span<double> accumulator, ReadOnlySpan<double> next) => _combine(accumulator, next);

    public override string ToString() => Name;

    private static void Apply<TOp>(Span<double> accumulator, ReadOnlySpan<double> next)
        where TOp : struct, IVectorOp
    {
        var i = 0;
        if (Vector.IsHardwareAccelerated && accumulator.Length >= Vector<double>.Count)
        {
            var acc = MemoryMarshal.Cast<double, Vector<double>>(accumulator);
            var nxt = MemoryMarshal.Cast<double, Vector<double>>(next);
            for (var v = 0; v < acc.Length; v++)
            {
                acc[v] = TOp.Apply(acc[v], nxt[v]);
            }

            i = acc.Length * Vector<double>.Count;
        }

        for (; i < accumulator.Length; i++)
        {
            accumulator[i] = TOp.Apply(accumulator[i], next[i]);
        }
    }

    private interface IVectorOp
    {
        static abstract Vector<double> Apply(Vector<double> a, Vector<double> b);

        static abstract double Apply(double a, double b);
    }

    private readonly struct AddOp : IVectorOp
    {
        public static Vector<double> Apply(Vector<double> a, Vector<double> b) => a + b;

        public static double Apply(double a, double b) => a + b;
    }

    // Min/Max of a NaN keep the NaN, in vector and scalar code alike.
    private readonly struct MinOp : IVectorOp
    {
        public static Vector<double> Apply(Vector<double> a, Vector<double> b) =>
            Vector.ConditionalSelect(Vector.Equals(a, a), Vector.ConditionalSelect(Vector.Equals(b, b), Vector.Min(a, b), b), a);

        public static double Apply(double a, double b) => double.IsNaN(a) ? a : double.IsNaN(b) ? b : Math.Min(a, b);
    }

    private readonly struct MaxOp : IVectorOp
    {
        public static Vector<double> Apply(Vector<double> a, Vector<double> b) =>
            Vector.ConditionalSelect(Vector.Equals(a, a), Vector.ConditionalSelect(Vector.Equals(b, b), Vector.Max(a, b), b), a);

        public static double Apply(double a, double b) => double.IsNaN(a) ? a : double.IsNaN(b) ? b : Math.Max(a, b);
    }
}
