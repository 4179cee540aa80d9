using System.Numerics;
using System.Runtime.InteropServices;
using Salsa.Ccr;

namespace Salsa.Clustering.Parallel;

// Design: the deterministic Allreduce of the algorithms. Every block has its own partial vector,
// written only by the rank that owns the block; after a barrier every rank folds all blocks' partials
// in block order into its own result. Ranks share memory, so the partials are read where they lie
// (no copies). Buffers are double-buffered by step parity: a rank writes step s+2's partials only
// after the barrier of step s+1, which every rank reaches after finishing its fold of step s.
/// <summary>Per-block partial sums of a fixed length, combined in block order on every rank.</summary>
internal sealed class OrderedBlockSum
{
    private readonly double[][][] _partials;

    public OrderedBlockSum(BlockPlan plan, int length)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(length, 1);
        Plan = plan;
        Length = length;
        _partials = [NewSet(plan.Blocks, length), NewSet(plan.Blocks, length)];
    }

    public BlockPlan Plan { get; }

    public int Length { get; }

    /// <summary>The partial of <paramref name="block"/> for step <paramref name="step"/>, cleared for writing.</summary>
    public Span<double> Begin(int block, long step)
    {
        var partial = _partials[step & 1][block].AsSpan(0, Length);
        partial.Clear();
        return partial;
    }

    /// <summary>Folds every block's partial of <paramref name="step"/> in block order into <paramref name="total"/>.</summary>
    public void Combine(Communicator communicator, long step, Span<double> total)
    {
        if (total.Length != Length)
        {
            throw new ArgumentException($"The total needs {Length} values.", nameof(total));
        }

        communicator.Barrier();
        var set = _partials[step & 1];
        set[0].AsSpan(0, Length).CopyTo(total);
        for (var b = 1; b < set.Length; b++)
        {
            Add(total, set[b].AsSpan(0, Length));
        }
    }

    private static void Add(Span<double> total, ReadOnlySpan<double> partial)
    {
        var i = 0;
        if (Vector.IsHardwareAccelerated && total.Length >= Vector<double>.Count)
        {
            var t = MemoryMarshal.Cast<double, Vector<double>>(total);
            var p = MemoryMarshal.Cast<double, Vector<double>>(partial);
            for (var v = 0; v < t.Length; v++)
            {
                t[v] += p[v];
            }

            i = t.Length * Vector<double>.Count;
        }

        for (; i < total.Length; i++)
        {
            total[i] += partial[i];
        }
    }

    private static double[][] NewSet(int blocks, int length)
    {
        var set = new double[blocks][];
        for (var b = 0; b < blocks; b++)
        {
            // 16 spare doubles (128 bytes): neighbouring blocks, written by different ranks, never share a line.
            set[b] = new double[length + 16];
        }

        return set;
    }
}
