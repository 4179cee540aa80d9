using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Salsa.Ccr.Internal;

// Design: unbounded single-producer/single-consumer queue of segments. The producer owns `_tail`
// and the tail segment's `Last`; the consumer owns `_head` and the head segment's `First`. Each
// side keeps a stale local copy of the other side's index (`LastCopy`/`FirstCopy`) and re-reads
// the shared one only when the copy says full/empty, so in steady state neither side touches the
// other's cache line. First and Last sit on separate padded lines. A full segment links a new,
// doubled one (up to a cap); the consumer moves on once it has drained the old one. Neither side
// ever waits on the other: waiting is the caller's policy (SpmdWaiter), not the queue's.
internal sealed class SpscQueue<T>
{
    private const int InitialSegmentSize = 32;
    private const int MaxSegmentSize = 1 << 20;

    private Segment _head;
    private Segment _tail;

    public SpscQueue()
    {
        _head = _tail = new Segment(InitialSegmentSize);
    }

    /// <summary>True when the consumer would find nothing. Exact only on the consumer thread.</summary>
    public bool IsEmpty
    {
        get
        {
            var head = _head;
            if (head.Indexes.First != Volatile.Read(ref head.Indexes.Last))
            {
                return false;
            }

            return Volatile.Read(ref head.Next) is not { } next || next.Indexes.First == Volatile.Read(ref next.Indexes.Last);
        }
    }

    /// <summary>Producer only.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Enqueue(T item)
    {
        var segment = _tail;
        var array = segment.Array;
        var last = segment.Indexes.Last;
        var next = (last + 1) & (array.Length - 1);
        if (next != segment.Indexes.FirstCopy || next != (segment.Indexes.FirstCopy = Volatile.Read(ref segment.Indexes.First)))
        {
            array[last] = item;
            Volatile.Write(ref segment.Indexes.Last, next);
            return;
        }

        EnqueueSlow(item);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void EnqueueSlow(T item)
    {
        var size = Math.Min(_tail.Array.Length * 2, MaxSegmentSize);
        var segment = new Segment(size);
        segment.Array[0] = item;
        segment.Indexes.Last = 1;
        segment.Indexes.LastCopy = 1;
        Volatile.Write(ref _tail.Next, segment);
        _tail = segment;
    }

    /// <summary>Consumer only.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryDequeue(out T item)
    {
        var segment = _head;
        var array = segment.Array;
        var first = segment.Indexes.First;
        if (first != segment.Indexes.LastCopy || first != (segment.Indexes.LastCopy = Volatile.Read(ref segment.Indexes.Last)))
        {
            item = array[first];
            if (RuntimeHelpers.IsReferenceOrContainsReferences<T>())
            {
                array[first] = default!;
            }

            Volatile.Write(ref segment.Indexes.First, (first + 1) & (array.Length - 1));
            return true;
        }

        return TryDequeueSlow(out item);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool TryDequeueSlow(out T item)
    {
        // The producer links a new segment only after filling this one, and never writes this one
        // again; once this one is drained (checked above) the consumer may move on.
        while (Volatile.Read(ref _head.Next) is { } next)
        {
            var segment = _head;
            if (segment.Indexes.First != Volatile.Read(ref segment.Indexes.Last))
            {
                return TryDequeue(out item);
            }

            _head = next;
            if (TryDequeue(out item))
            {
                return true;
            }
        }

        item = default!;
        return false;
    }

    private sealed class Segment(int size)
    {
        public readonly T[] Array = new T[size];
        public SegmentIndexes Indexes;
        public Segment? Next;
    }
}

/// <summary>The SPSC indexes, each side's on its own padded line (outside the generic queue: generic types cannot have explicit layout).</summary>
[StructLayout(LayoutKind.Explicit, Size = 3 * CacheLine.Size)]
internal struct SegmentIndexes
{
    // Consumer's line.
    [FieldOffset(CacheLine.Size)]
    public int First;

    [FieldOffset(CacheLine.Size + sizeof(int))]
    public int LastCopy;

    // Producer's line.
    [FieldOffset(2 * CacheLine.Size)]
    public int Last;

    [FieldOffset(2 * CacheLine.Size + sizeof(int))]
    public int FirstCopy;
}
