using System.Runtime.CompilerServices;
using Salsa.Ccr.Internal;

namespace Salsa.Ccr;

/// <summary>
/// One double accumulator per rank, each alone on its cache lines, for partial sums that ranks add
/// into at high rate (paper 000 Table II: sharing a line costs an order of magnitude).
/// </summary>
public sealed class PaddedAccumulators
{
    private readonly double[] _values;

    public PaddedAccumulators(int count)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        Count = count;
        _values = new double[(count + 2) * CacheLine.Doubles];
    }

    public int Count { get; }

    /// <summary>The accumulator of <paramref name="index"/>; write it only from its owner.</summary>
    public ref double this[int index]
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get
        {
            if ((uint)index >= (uint)Count)
            {
                ThrowHelper.ArgumentOutOfRange(nameof(index), index, $"Accumulators run from 0 to {Count - 1}.");
            }

            return ref _values[(index + 1) * CacheLine.Doubles];
        }
    }

    /// <summary>Sum in index order (deterministic).</summary>
    public double Sum()
    {
        var total = 0.0;
        for (var i = 0; i < Count; i++)
        {
            total += this[i];
        }

        return total;
    }
}
