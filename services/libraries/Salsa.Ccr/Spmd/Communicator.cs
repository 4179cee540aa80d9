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
public sealed class Communicator
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

    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder<>))]
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

    // ---- collectives ---------------------------------------------------------------------------

    public void Barrier()
    {
        var generation = Enter(Signature(CollectiveKind.Barrier));
        Publish(generation);
        Wait(new AllRanksReached(_group.Ranks, generation));
        CheckAgreement(generation);
    }

    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask BarrierAsync()
    {
        var generation = await EnterAsync(Signature(CollectiveKind.Barrier)).ConfigureAwait(true);
        Publish(generation);
        await WaitAsync(new AllRanksReached(_group.Ranks, generation)).ConfigureAwait(true);
        CheckAgreement(generation);
    }

    /// <summary>Every rank gets <paramref name="root"/>'s value.</summary>
    public T Broadcast<T>(T value, int root = 0)
    {
        CheckRank(root, nameof(root));
        var generation = Enter(Signature<T>(CollectiveKind.Broadcast, root));
        var slots = _group.Slots<T>();
        if (Rank == root)
        {
            slots[Rank, generation] = value;
        }

        Publish(generation);
        if (Rank == root)
        {
            return value;
        }

        Wait(new RankReached(_group.Ranks[root], generation));
        CheckAgreement(generation, root);
        return slots[root, generation];
    }

    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<T> BroadcastAsync<T>(T value, int root = 0)
    {
        CheckRank(root, nameof(root));
        var generation = await EnterAsync(Signature<T>(CollectiveKind.Broadcast, root)).ConfigureAwait(true);
        var slots = _group.Slots<T>();
        if (Rank == root)
        {
            slots[Rank, generation] = value;
        }

        Publish(generation);
        if (Rank == root)
        {
            return value;
        }

        await WaitAsync(new RankReached(_group.Ranks[root], generation)).ConfigureAwait(true);
        CheckAgreement(generation, root);
        return slots[root, generation];
    }

    /// <summary>Element-wise reduction of every rank's <paramref name="send"/> into every rank's <paramref name="receive"/> (may be the same memory).</summary>
    public void Allreduce(ReadOnlySpan<double> send, Span<double> receive, ReduceOperation operation)
    {
        ArgumentNullException.ThrowIfNull(operation);
        CheckLengths(send.Length, receive.Length);
        var generation = Enter(Signature<double>(CollectiveKind.Allreduce));
        StageContribution(send, generation);
        Publish(generation);
        Wait(new AllRanksReached(_group.Ranks, generation));
        CheckAgreement(generation);
        Fold(receive, operation, generation);
    }

    /// <summary>In-place <see cref="Allreduce(ReadOnlySpan{double}, Span{double}, ReduceOperation)"/>.</summary>
    public void Allreduce(double[] values, ReduceOperation operation) => Allreduce(values, values, operation);

    public double Allreduce(double value, ReduceOperation operation)
    {
        Span<double> buffer = [value];
        Allreduce(buffer, buffer, operation);
        return buffer[0];
    }

    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask AllreduceAsync(ReadOnlyMemory<double> send, Memory<double> receive, ReduceOperation operation)
    {
        ArgumentNullException.ThrowIfNull(operation);
        CheckLengths(send.Length, receive.Length);
        var generation = await EnterAsync(Signature<double>(CollectiveKind.Allreduce)).ConfigureAwait(true);
        StageContribution(send.Span, generation);
        Publish(generation);
        await WaitAsync(new AllRanksReached(_group.Ranks, generation)).ConfigureAwait(true);
        CheckAgreement(generation);
        Fold(receive.Span, operation, generation);
    }

    /// <summary>Reduction into <paramref name="root"/>'s <paramref name="receive"/>; other ranks' <paramref name="receive"/> is untouched.</summary>
    public void Reduce(ReadOnlySpan<double> send, Span<double> receive, ReduceOperation operation, int root = 0)
    {
        ArgumentNullException.ThrowIfNull(operation);
        CheckRank(root, nameof(root));
        CheckLengths(send.Length, receive.Length);
        var generation = Enter(Signature<double>(CollectiveKind.Reduce, root));
        StageContribution(send, generation);
        Publish(generation);
        if (Rank == root)
        {
            Wait(new AllRanksReached(_group.Ranks, generation));
            CheckAgreement(generation);
            Fold(receive, operation, generation);
        }
    }

    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder))]
    public async ValueTask ReduceAsync(ReadOnlyMemory<double> send, Memory<double> receive, ReduceOperation operation, int root = 0)
    {
        ArgumentNullException.ThrowIfNull(operation);
        CheckRank(root, nameof(root));
        CheckLengths(send.Length, receive.Length);
        var generation = await EnterAsync(Signature<double>(CollectiveKind.Reduce, root)).ConfigureAwait(true);
        StageContribution(send.Span, generation);
        Publish(generation);
        if (Rank == root)
        {
            await WaitAsync(new AllRanksReached(_group.Ranks, generation)).ConfigureAwait(true);
            CheckAgreement(generation);
            Fold(receive.Span, operation, generation);
        }
    }

    /// <summary>Reduction of any type with a user combination, folded in rank order; every rank gets the result.</summary>
    public T Allreduce<T>(T value, Func<T, T, T> combine)
    {
        ArgumentNullException.ThrowIfNull(combine);
        var all = Allgather(value);
        var result = all[0];
        for (var r = 1; r < all.Length; r++)
        {
            result = combine(result, all[r]);
        }

        return result;
    }

    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<T> AllreduceAsync<T>(T value, Func<T, T, T> combine)
    {
        ArgumentNullException.ThrowIfNull(combine);
        var all = await AllgatherAsync(value).ConfigureAwait(true);
        var result = all[0];
        for (var r = 1; r < all.Length; r++)
        {
            result = combine(result, all[r]);
        }

        return result;
    }

    /// <summary><paramref name="root"/> gets every rank's value in rank order; other ranks get null.</summary>
    public T[]? Gather<T>(T value, int root = 0)
    {
        CheckRank(root, nameof(root));
        var generation = Enter(Signature<T>(CollectiveKind.Gather, root));
        var slots = _group.Slots<T>();
        slots[Rank, generation] = value;
        Publish(generation);
        if (Rank != root)
        {
            return null;
        }

        Wait(new AllRanksReached(_group.Ranks, generation));
        CheckAgreement(generation);
        return Collect(slots, generation);
    }

    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<T[]?> GatherAsync<T>(T value, int root = 0)
    {
        CheckRank(root, nameof(root));
        var generation = await EnterAsync(Signature<T>(CollectiveKind.Gather, root)).ConfigureAwait(true);
        var slots = _group.Slots<T>();
        slots[Rank, generation] = value;
        Publish(generation);
        if (Rank != root)
        {
            return null;
        }

        await WaitAsync(new AllRanksReached(_group.Ranks, generation)).ConfigureAwait(true);
        CheckAgreement(generation);
        return Collect(slots, generation);
    }

    /// <summary>Every rank gets every rank's value, in rank order.</summary>
    public T[] Allgather<T>(T value)
    {
        var generation = Enter(Signature<T>(CollectiveKind.Allgather));
        var slots = _group.Slots<T>();
        slots[Rank, generation] = value;
        Publish(generation);
        Wait(new AllRanksReached(_group.Ranks, generation));
        CheckAgreement(generation);
        return Collect(slots, generation);
    }

    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder<>))]
    public async ValueTask<T[]> AllgatherAsync<T>(T value)
    {
        var generation = await EnterAsync(Signature<T>(CollectiveKind.Allgather)).ConfigureAwait(true);
        var slots = _group.Slots<T>();
        slots[Rank, generation] = value;
        Publish(generation);
        await WaitAsync(new AllRanksReached(_group.Ranks, generation)).ConfigureAwait(true);
        CheckAgreement(generation);
        return Collect(slots, generation);
    }

    // ---- machinery -----------------------------------------------------------------------------

    // Mailboxes have one producer: the sending rank. A rank's code may still send from several
    // threads at once (a Parallel.For inside a rank), so sends are serialised by a lock biased to the
    // rank's own flow — the code the runtime runs as the rank (RankFlow marks the thread while it
    // does: under thread execution for the whole body, under task execution from each resumption to
    // the next suspension). The flow only flags itself and checks that no other thread has sent: two
    // plain accesses, no atomic instruction. The first send from elsewhere marks the communicator
    // shared, fences every core (membarrier: the flow's flag becomes visible, or the flow sees the
    // mark) and waits out a flow send in flight; from then on every send takes a spin lock.
    private void SendTagged<T>(MailboxTag tag, int destination, T message)
    {
        _group.ThrowIfAborted();
        var mailbox = _group.Mailboxes<T>().Get(tag, Rank, destination);
        if (RankFlow.Runs(_me.Waiter) && TryEnqueueAsOwner(mailbox, message))
        {
            // The flow sending to its own rank is that rank, running: nobody to wake (and no fence).
            if (destination != Rank)
            {
                _group.Ranks[destination].Waiter.Wake();
            }

            return;
        }

        EnqueueLocked(mailbox, message);
        _group.Ranks[destination].Waiter.Wake();
    }

    /// <summary>The owner's unlocked send; false once another thread has sent (then it locks too).</summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.AggressiveInlining)]
    private bool TryEnqueueAsOwner<T>(SpscQueue<T> mailbox, T message)
    {
        Volatile.Write(ref _counters.OwnerSending, 1);
        if (Volatile.Read(ref _counters.Shared) != 0)
        {
            Volatile.Write(ref _counters.OwnerSending, 0);
            return false;
        }

        mailbox.Enqueue(message);
        Volatile.Write(ref _counters.OwnerSending, 0);
        return true;
    }

    // No try/finally: enqueueing throws only when memory runs out, and a waiter for the lock gives up
    // when the run is aborted, as the failing rank's run then is.
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private void EnqueueLocked<T>(SpscQueue<T> mailbox, T message)
    {
        if (Interlocked.CompareExchange(ref _counters.SendLock, 1, 0) != 0)
        {
            WaitForSendLock();
        }

        ShareWithOwner();
        mailbox.Enqueue(message);
        Volatile.Write(ref _counters.SendLock, 0);
    }

    private void WaitForSendLock()
    {
        var spin = new SpinWait();
        do
        {
            spin.SpinOnce();
            _group.ThrowIfAborted();
        }
        while (Volatile.Read(ref _counters.SendLock) != 0 || Interlocked.CompareExchange(ref _counters.SendLock, 1, 0) != 0);
    }

    /// <summary>Holding the send lock, off the rank's flow: ends the flow's unlocked sends and waits out one in flight.</summary>
    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private void ShareWithOwner()
    {
        if (Volatile.Read(ref _counters.Shared) == 0)
        {
            _group.StopDeadlockDetection();
            Volatile.Write(ref _counters.Shared, 1);
            Interlocked.MemoryBarrierProcessWide();
        }

        var spin = new SpinWait();
        while (Volatile.Read(ref _counters.OwnerSending) != 0)
        {
            spin.SpinOnce();
        }
    }

    private T ReceiveTagged<T>(MailboxTag tag, int source)
    {
        ThrowIfTasks();
        var queue = _group.Mailboxes<T>().Get(tag, source, Rank);
        T message;
        while (!queue.TryDequeue(out message))
        {
            _me.Waiter.Wait(new QueueNotEmpty<T>(queue, source));
            _group.ThrowIfAborted();
        }

        return message;
    }

    private ValueTask<T> ReceiveTaggedAsync<T>(MailboxTag tag, int source) =>
        _me.Waiter.RunAsync<ReceiveOperation<T>, T>(new ReceiveOperation<T>(_group.Mailboxes<T>().Get(tag, source, Rank), source));

    /// <summary>
    /// Starts collective number ++Generation: waits until every rank has entered the previous one,
    /// checks they all called the same one (the wait made their signatures readable), and writes this
    /// one's signature, which <see cref="Publish"/> then releases with the generation.
    /// </summary>
    private long Enter(long signature)
    {
        ThrowIfTasks();
        var generation = ++_counters.Generation;
        if (generation > 1)
        {
            Wait(new AllRanksReached(_group.Ranks, generation - 1));
            CheckAgreement(generation - 1);
        }

        _me.Published.SetSignature(generation, signature);
        return generation;
    }

    [System.Runtime.CompilerServices.AsyncMethodBuilder(typeof(System.Runtime.CompilerServices.PoolingAsyncValueTaskMethodBuilder<>))]
    private async ValueTask<long> EnterAsync(long signature)
    {
        var generation = ++_counters.Generation;
        if (generation > 1)
        {
            await WaitAsync(new AllRanksReached(_group.Ranks, generation - 1)).ConfigureAwait(true);
            CheckAgreement(generation - 1);
        }

        _me.Published.SetSignature(generation, signature);
        return generation;
    }

    private static long Signature(CollectiveKind kind) => CollectiveSignature.Of(kind, -1, -1);

    private static long Signature<T>(CollectiveKind kind, int root = -1) => CollectiveSignature.Of(kind, root, TypeKey<T>.Id);

    /// <summary>Every rank entered collective <paramref name="generation"/> with this rank's signature (they all reached it).</summary>
    private void CheckAgreement(long generation)
    {
        var mine = _me.Published.Signature(generation);
        foreach (var rank in _group.Ranks)
        {
            if (rank.Published.Signature(generation) != mine)
            {
                ThrowHelper.Throw(CollectiveSignature.Disagreement(_group.Ranks, generation));
            }
        }
    }

    /// <summary>The one rank this rank reads from (a broadcast's root, which reached it) entered the same collective.</summary>
    private void CheckAgreement(long generation, int root)
    {
        if (_group.Ranks[root].Published.Signature(generation) != _me.Published.Signature(generation))
        {
            ThrowHelper.Throw(CollectiveSignature.Disagreement(_group.Ranks, generation));
        }
    }

    private void Publish(long generation)
    {
        Volatile.Write(ref _me.Published.Generation, generation);
        _group.WakeAll();
    }

    private void Wait<TCondition>(TCondition condition)
        where TCondition : struct, IWaitCondition
    {
        _me.Waiter.Wait(condition);
        _group.ThrowIfAborted();
    }

    // Internal awaits keep the synchronization context (ConfigureAwait(true)): under task execution an
    // operation may complete on another dispatcher thread before this rank has even registered its
    // continuation, and a value-task source completed that early queues the continuation to the
    // thread pool unless a context was captured. With the dispatcher's context captured it goes
    // back to the rank's queue (its local slot), never off the dispatcher.
    private ValueTask WaitAsync<TCondition>(TCondition condition)
        where TCondition : struct, IWaitCondition
    {
        _group.ThrowIfAborted();
        return _me.Waiter.WaitAsync(condition);
    }

    private void StageContribution(ReadOnlySpan<double> send, long generation)
    {
        ref var buffer = ref _me.Scratch[generation & 1];
        if (buffer.Length < send.Length)
        {
            // Round up to whole cache lines so the next rank's buffer never shares our last line.
            buffer = new double[(send.Length + CacheLine.Doubles - 1) / CacheLine.Doubles * CacheLine.Doubles];
        }

        send.CopyTo(buffer);
        _me.ScratchLengths[generation & 1] = send.Length;
    }

    private void Fold(Span<double> receive, ReduceOperation operation, long generation)
    {
        var parity = generation & 1;
        foreach (var rank in _group.Ranks)
        {
            if (rank.ScratchLengths[parity] != receive.Length)
            {
                // Worded the same on every rank, so the run reports one failure, not one per rank.
                var lengths = string.Join(", ", _group.Ranks.Select((r, i) => $"rank {i}: {r.ScratchLengths[parity]}"));
                ThrowHelper.InvalidOperation($"Ranks reduced vectors of different lengths ({lengths}); every rank must pass the same length.");
            }
        }

        _group.Ranks[0].Scratch[parity].AsSpan(0, receive.Length).CopyTo(receive);
        for (var r = 1; r < _group.Size; r++)
        {
            operation.Combine(receive, _group.Ranks[r].Scratch[parity].AsSpan(0, receive.Length));
        }
    }

    private T[] Collect<T>(CollectiveSlots<T> slots, long generation)
    {
        var result = new T[Size];
        for (var r = 0; r < result.Length; r++)
        {
            result[r] = slots[r, generation];
        }

        return result;
    }

    private void CheckRank(int rank, string name)
    {
        if ((uint)rank >= (uint)Size)
        {
            ThrowHelper.ArgumentOutOfRange(name, rank, $"Ranks run from 0 to {Size - 1}.");
        }
    }

    private static void CheckLengths(int send, int receive)
    {
        if (send != receive)
        {
            ThrowHelper.Argument(nameof(receive), $"The receive buffer holds {receive} values; the send buffer {send}.");
        }
    }

    private void ThrowIfTasks()
    {
        if (_group.Execution == SpmdExecution.Tasks)
        {
            ThrowHelper.InvalidOperation("Ranks under task execution must use the *Async collectives: a blocking wait would hold a dispatcher thread other ranks need.");
        }
    }
}

/// <summary>A rank's own sequence numbers, alone on their cache lines.</summary>
[System.Runtime.InteropServices.StructLayout(System.Runtime.InteropServices.LayoutKind.Explicit, Size = 3 * CacheLine.Size)]
internal struct RankCounters
{
    [System.Runtime.InteropServices.FieldOffset(CacheLine.Size)]
    public long Generation;

    [System.Runtime.InteropServices.FieldOffset(CacheLine.Size + sizeof(long))]
    public long ExchangeSequence;

    /// <summary>1 while the rank's own thread enqueues a message on the unlocked path (see SendTagged).</summary>
    [System.Runtime.InteropServices.FieldOffset(CacheLine.Size + 2 * sizeof(long))]
    public int OwnerSending;

    /// <summary>1 once another thread of the rank has sent: every send takes <see cref="SendLock"/>.</summary>
    [System.Runtime.InteropServices.FieldOffset(CacheLine.Size + 2 * sizeof(long) + sizeof(int))]
    public int Shared;

    /// <summary>The spin lock of shared sends.</summary>
    [System.Runtime.InteropServices.FieldOffset(CacheLine.Size + 2 * sizeof(long) + 2 * sizeof(int))]
    public int SendLock;
}
