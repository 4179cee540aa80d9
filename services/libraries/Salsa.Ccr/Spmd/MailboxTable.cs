using System.Runtime.CompilerServices;
using Salsa.Ccr.Internal;

namespace Salsa.Ccr;

/// <summary>Internal message channels of the communicator; each is its own MPI-style tag.</summary>
internal enum MailboxTag
{
    PointToPoint = 0,
    Rightward = 1,
    Leftward = 2,
    Pipeline = 3,
}

// Design: one unbounded SPSC queue per (tag, source, destination), created on first use by either
// end (CAS, so both ends agree on one queue). Messages are matched by source as MPI requires: a
// receive from s reads only s's queue, whatever order other ranks' messages arrive in. n² queues
// per tag is fine inside one process (tens of ranks), and it is what makes matching free.
internal sealed class MailboxTable<T>(int size)
{
    private const int TagCount = 4;

    private readonly SpscQueue<T>?[] _queues = new SpscQueue<T>?[TagCount * size * size];

    public SpscQueue<T> Get(MailboxTag tag, int source, int destination)
    {
        var index = (((int)tag * size) + source) * size + destination;
        return Volatile.Read(ref _queues[index]) ?? Create(index);
    }

    private SpscQueue<T> Create(int index)
    {
        var created = new SpscQueue<T>();
        return Interlocked.CompareExchange(ref _queues[index], created, null) ?? created;
    }
}

/// <summary>
/// Per-rank value slots for collectives on arbitrary types, double-buffered by generation parity,
/// each rank's pair of slots on its own cache lines (a stride of whole lines between ranks).
/// </summary>
internal sealed class CollectiveSlots<T>(int size)
{
    private static readonly int Stride = Math.Max(1, (CacheLine.Size + Unsafe.SizeOf<T>() - 1) / Unsafe.SizeOf<T>());

    // Two slots per rank, each rank starting on a fresh line; one spare stride at each end.
    private readonly T[] _values = new T[(size * 2 + 2) * Stride];

    public ref T this[int rank, long generation] => ref _values[((rank * 2) + (int)(generation & 1) + 1) * Stride];
}

internal readonly struct QueueNotEmpty<T>(SpscQueue<T> queue, int source) : IWaitCondition
{
    public bool IsSatisfied() => !queue.IsEmpty;

    public WaitInfo Info => new(WaitKind.Message, 0, source);
}

internal readonly struct RankReached(RankState rank, long generation) : IWaitCondition
{
    public bool IsSatisfied() => Volatile.Read(ref rank.Published.Generation) >= generation;

    public WaitInfo Info => new(WaitKind.Rank, generation, rank.Index);
}

internal readonly struct AllRanksReached(RankState[] ranks, long generation) : IWaitCondition
{
    public WaitInfo Info => new(WaitKind.AllRanks, generation);

    public bool IsSatisfied()
    {
        foreach (var rank in ranks)
        {
            if (Volatile.Read(ref rank.Published.Generation) < generation)
            {
                return false;
            }
        }

        return true;
    }
}

/// <summary>
/// The Exchange pattern's cells: per rank and generation parity, the two values it sends and the
/// exchange sequence number that publishes them, together on one cache line, so a neighbour's read
/// costs one line transfer. Ranks sit whole lines apart.
/// </summary>
internal sealed class ExchangeCells<T>(int size)
{
    private static readonly int Stride = Math.Max(1, (2 * CacheLine.Size + Unsafe.SizeOf<Cell>() - 1) / Unsafe.SizeOf<Cell>());

    private readonly Cell[] _cells = new Cell[(size * 2 + 2) * Stride];

    public ref Cell this[int rank, long sequence] => ref _cells[((rank * 2) + (int)(sequence & 1) + 1) * Stride];

    internal struct Cell
    {
        public long Sequence;
        public T ToLeft;
        public T ToRight;
    }
}

internal readonly struct NeighboursPublished<T>(ExchangeCells<T> cells, int left, int right, long sequence) : IWaitCondition
{
    public bool IsSatisfied() =>
        Volatile.Read(ref cells[left, sequence].Sequence) >= sequence &&
        Volatile.Read(ref cells[right, sequence].Sequence) >= sequence;

    public WaitInfo Info => new(WaitKind.Neighbours, sequence);
}

/// <summary>An exchange completes when both neighbours have published this sequence; it reads their values.</summary>
internal readonly struct ExchangeOperation<T>(ExchangeCells<T> cells, int left, int right, long sequence) : IWaitOperation<(T, T)>
{
    public bool IsSatisfied() => new NeighboursPublished<T>(cells, left, right, sequence).IsSatisfied();

    public WaitInfo Info => new(WaitKind.Neighbours, sequence);

    public bool TryComplete(out (T, T) result)
    {
        if (!IsSatisfied())
        {
            result = default;
            return false;
        }

        result = (cells[left, sequence].ToRight, cells[right, sequence].ToLeft);
        return true;
    }
}

/// <summary>A receive completes by taking the next message of one source's queue.</summary>
internal readonly struct ReceiveOperation<T>(SpscQueue<T> queue, int source) : IWaitOperation<T>
{
    public bool IsSatisfied() => !queue.IsEmpty;

    public WaitInfo Info => new(WaitKind.Message, 0, source);

    public bool TryComplete(out T result) => queue.TryDequeue(out result);
}
