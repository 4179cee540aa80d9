using System.Numerics;
using System.Runtime.InteropServices;
using Salsa.Ccr;

namespace Salsa.Clustering.Parallel;

// Design: the deterministic Allreduce of the algorithms. Every block has its own partial vector,
// written only by the rank that owns the block; after a barrier every rank folds all blocks' partials
// in block order into its own result. Ranks share memory, so the partials are read where they lie
// (no copies). Buffers are double-buffered by step parity: a rank writes step s+2's partials only
// after the barrier of step s+1, which every rank reaches after finishing its fold of step s.
//
// Balancing: which rank computes a block does not change its partial, so a rank that finishes its own
// blocks early takes the others' last blocks (a shared VM core slowed by a neighbour, an uneven block).
// A block is claimed by stamping it with the step (compare-and-swap; stamps only grow, so nothing is
// reset): owners claim their blocks first to last, helpers last to first, and each stops at the first
// block it finds stamped. Results stay bit-identical; only the time changes.
/// <summary>Per-block partial sums of a fixed length, combined in block order on every rank.</summary>
internal sealed class OrderedBlockSum
{
    private readonly double[][][] _partials;
    private readonly long[] _claims;

    public OrderedBlockSum(BlockPlan plan, int length)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(length, 1);
        Plan = plan;
        Length = length;
        _partials = [NewSet(plan.Blocks, length), NewSet(plan.Blocks, length)];
        _claims = new long[plan.Blocks];
        Array.Fill(_claims, -1);
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

    /// <summary>
    /// One loosely synchronous step: <paramref name="pass"/> over this rank's blocks (and, when
    /// <paramref name="balance"/>, any block another rank has not started), then the ordered fold into
    /// <paramref name="total"/>. Balance only passes that read nothing a rank writes for its own points
    /// outside a pass since the last barrier.
    /// </summary>
    public void Reduce(Communicator communicator, long step, BlockPass pass, int length, Span<double> total, bool balance = true)
    {
        ForEachBlock(communicator.Rank, communicator.Size, step, balance, (block, start, end) => pass(start, end, Begin(block, step)[..length]));
        Combine(communicator, step, total);
    }

    /// <summary>Runs <paramref name="work"/> for every block this rank computes in <paramref name="step"/>.</summary>
    public void ForEachBlock(int rank, int size, long step, bool balance, Action<int, int, int> work)
    {
        var (own, ownEnd) = Plan.BlocksOf(rank, size);
        for (var b = own; b < ownEnd && (!balance || Claim(b, step)); b++)
        {
            var (start, stop) = Plan.Block(b);
            work(b, start, stop);
        }

        if (!balance)
        {
            return;
        }

        for (var other = 1; other < size; other++)
        {
            var (first, end) = Plan.BlocksOf((rank + other) % size, size);
            for (var b = end - 1; b >= first && Claim(b, step); b--)
            {
                var (start, stop) = Plan.Block(b);
                work(b, start, stop);
            }
        }
    }

    private bool Claim(int block, long step)
    {
        var seen = Volatile.Read(ref _claims[block]);
        return seen < step && Interlocked.CompareExchange(ref _claims[block], step, seen) == seen;
    }

    /// <summary>Folds every block's partial of <paramref name="step"/> in block order into <paramref name="total"/>.</summary>
    public void Combine(Communicator communicator, long step, Span<double> total)
    {
        if (total.Length != Length)
        {
            throw new ArgumentException($"The total needs {Length} values.", nameof(total));
        }

        communicator.Barrier();
        Fold(step, total);
    }

    /// <summary>
    /// The same step on the calling thread alone: every block in order, then the fold — the same bits
    /// as any number of ranks, without starting any.
    /// </summary>
    public void ReduceAlone(long step, BlockPass pass, int length, Span<double> total)
    {
        if (total.Length != Length)
        {
            throw new ArgumentException($"The total needs {Length} values.", nameof(total));
        }

        for (var b = 0; b < Plan.Blocks; b++)
        {
            var (start, stop) = Plan.Block(b);
            pass(start, stop, Begin(b, step)[..length]);
        }

        Fold(step, total);
    }

    private void Fold(long step, Span<double> total)
    {
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

/// <summary>A pass over the points <c>[start, end)</c> of one block, adding into the block's partial.</summary>
internal delegate void BlockPass(int start, int end, Span<double> partial);
