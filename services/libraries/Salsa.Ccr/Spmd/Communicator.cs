using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Salsa.Ccr.Internal;

namespace Salsa.Ccr;

// Design: one Communicator per rank, used only by that rank's code. Point-to-point traffic goes
// through SPSC mailboxes matched by source (and an internal tag per pattern). Collectives use the
// ranks' published generations: a rank entering collective g first waits until every rank has
// entered g−1 (so nobody still reads the parity buffer it is about to overwrite — free for the
// symmetric collectives, a short wait at most for rooted ones), writes its data for g, publishes g,
// wakes sleepers, then waits for the generations it needs to read. Reductions fold contributions in
// rank order 0..P−1, so results are bit-identical from run to run. Blocking methods are for thread
// execution; the *Async methods work in both executions (in thread execution they complete
// synchronously).
/// <summary>A rank's view of its SPMD group: MPI-style point-to-point messages and collectives.</summary>
/// <remarks>
/// <see cref="Send{T}"/> may be called from several threads of the rank at once. Everything else
/// belongs to the rank's own flow, one call at a time (under task execution, await each before the
/// next). Every rank must call the same collectives in the same order with the same root and value
/// type: a rank that does not fails the run with an <see cref="InvalidOperationException"/> naming
/// what each rank called, and a run that can never finish (a rank returned early, a receive with no
/// send) fails with a report of what each rank waits for — never a stale value, never a hang.
/// </remarks>
public sealed partial class Communicator
{
    private readonly SpmdGroup _group;
    private readonly RankState _me;

    // Written by this rank on every collective; padded because the ranks' Communicators are
    // allocated side by side, and sharing a line here cost 3x on Exchange (paper 000 Table II).
    private RankCounters _counters;

    internal Communicator(SpmdGroup group, int rank)
    {
        _group = group;
        Rank = rank;
        _me = group.Ranks[rank];
    }

    public int Rank { get; }

    public int Size => _group.Size;

    public SpmdExecution Execution => _group.Execution;

    /// <summary>Cancelled when the run is cancelled; long computations should check it between steps.</summary>
    public CancellationToken CancellationToken => _group.CancellationToken;

    /// <summary>The rank <paramref name="offset"/> places to the right, wrapping around (torus).</summary>
    public int Neighbour(int offset) => (int)(((long)Rank + offset) % Size + Size) % Size;

    // ---- point to point ------------------------------------------------------------------------

    /// <summary>
    /// Sends a message to <paramref name="destination"/>; never blocks (mailboxes are unbounded). Safe
    /// from several threads of one rank at once: each thread's messages arrive in its own order.
    /// </summary>
    public void Send<T>(int destination, T message)
    {
        CheckRank(destination, nameof(destination));
        SendTagged(MailboxTag.PointToPoint, destination, message);
    }

    /// <summary>Receives the next message sent by <paramref name="source"/> (thread execution).</summary>
    public T Receive<T>(int source)
    {
        CheckRank(source, nameof(source));
        return ReceiveTagged<T>(MailboxTag.PointToPoint, source);
    }

    /// <summary>Takes the next message from <paramref name="source"/> if one is there.</summary>
    public bool TryReceive<T>(int source, out T message)
    {
        CheckRank(source, nameof(source));
        return _group.Mailboxes<T>().Get(MailboxTag.PointToPoint, source, Rank).TryDequeue(out message);
    }

    public ValueTask<T> ReceiveAsync<T>(int source)
    {
        CheckRank(source, nameof(source));
        return ReceiveTaggedAsync<T>(MailboxTag.PointToPoint, source);
    }

    // ---- neighbour patterns --------------------------------------------------------------------

    /// <summary>Sends to the rank <paramref name="offset"/> to the right and receives from the one as far to the left.</summary>
    public T Shift<T>(T message, int offset = 1)
    {
        SendTagged(MailboxTag.Rightward, Neighbour(offset), message);
        return ReceiveTagged<T>(MailboxTag.Rightward, Neighbour(-offset));
    }

    public ValueTask<T> ShiftAsync<T>(T message, int offset = 1)
    {
        SendTagged(MailboxTag.Rightward, Neighbour(offset), message);
        return ReceiveTaggedAsync<T>(MailboxTag.Rightward, Neighbour(-offset));
    }

    /// <summary>
    /// MPI_SENDRECV both ways on a ring: sends one message to each neighbour and receives the one
    /// each neighbour sent this way, matched by source and direction — correct for two ranks (where
    /// left and right are the same rank). Every rank of the group calls it the same number of times.
    /// </summary>
    /// <remarks>
    /// A rank publishes both values in its own cell (double-buffered by parity) and reads its
    /// neighbours' cells. Its cell for exchange e was last read by the neighbours during exchange
    /// e−2, which they finished before publishing e−1 — and this rank waited for their e−1 before
    /// returning from its own e−1. So the overwrite is always safe, with no extra synchronisation.
    /// </remarks>
    public (T FromLeft, T FromRight) Exchange<T>(T toLeft, T toRight)
    {
        ThrowIfTasks();
        var (cells, left, right, sequence) = PublishExchange(toLeft, toRight);
        Wait(new NeighboursPublished<T>(cells, left, right, sequence));
        return (cells[left, sequence].ToRight, cells[right, sequence].ToLeft);
    }

    public ValueTask<(T FromLeft, T FromRight)> ExchangeAsync<T>(T toLeft, T toRight)
    {
        var (cells, left, right, sequence) = PublishExchange(toLeft, toRight);
        return _me.Waiter.RunAsync<ExchangeOperation<T>, (T, T)>(new ExchangeOperation<T>(cells, left, right, sequence));
    }

    private (ExchangeCells<T> Cells, int Left, int Right, long Sequence) PublishExchange<T>(T toLeft, T toRight)
    {
        _group.ThrowIfAborted();
        var cells = _group.Exchanges<T>();
        var sequence = ++_counters.ExchangeSequence;
        ref var cell = ref cells[Rank, sequence];
        cell.ToLeft = toLeft;
        cell.ToRight = toRight;
        Volatile.Write(ref cell.Sequence, sequence);
        var left = Neighbour(-1);
        var right = Neighbour(1);
        _group.Ranks[left].Waiter.Wake();
        if (right != left)
        {
            _group.Ranks[right].Waiter.Wake();
        }

        return (cells, left, right, sequence);
    }

    /// <summary>
    /// A pipeline through the ranks in order (fixed ends, not a ring): rank 0 applies
    /// <paramref name="stage"/> to <paramref name="input"/>, every later rank to what its left
    /// neighbour produced. Returns this rank's output; the last rank's is the pipeline's result.
    /// </summary>
    public T Pipeline<T>(T input, Func<T, T> stage)
    {
        ArgumentNullException.ThrowIfNull(stage);
        var value = Rank == 0 ? input : ReceiveTagged<T>(MailboxTag.Pipeline, Rank - 1);
        var output = stage(value);
        if (Rank < Size - 1)
        {
            SendTagged(MailboxTag.Pipeline, Rank + 1, output);
        }

        return output;
    }

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<T> PipelineAsync<T>(T input, Func<T, T> stage)
    {
        ArgumentNullException.ThrowIfNull(stage);
        var value = Rank == 0 ? input : await ReceiveTaggedAsync<T>(MailboxTag.Pipeline, Rank - 1).ConfigureAwait(true);
        var output = stage(value);
        if (Rank < Size - 1)
        {
            SendTagged(MailboxTag.Pipeline, Rank + 1, output);
        }

        return output;
    }
}

/// <summary>A rank's own sequence numbers, alone on their cache lines.</summary>
[StructLayout(LayoutKind.Explicit, Size = 3 * CacheLine.Size)]
internal struct RankCounters
{
    [FieldOffset(CacheLine.Size)]
    public long Generation;

    [FieldOffset(CacheLine.Size + sizeof(long))]
    public long ExchangeSequence;

    /// <summary>1 while the rank's own thread enqueues a message on the unlocked path (see SendTagged).</summary>
    [FieldOffset(CacheLine.Size + 2 * sizeof(long))]
    public int OwnerSending;

    /// <summary>1 once another thread of the rank has sent: every send takes <see cref="SendLock"/>.</summary>
    [FieldOffset(CacheLine.Size + 2 * sizeof(long) + sizeof(int))]
    public int Shared;

    /// <summary>The spin lock of shared sends.</summary>
    [FieldOffset(CacheLine.Size + 2 * sizeof(long) + 2 * sizeof(int))]
    public int SendLock;
}
