using System.Runtime.CompilerServices;
using Salsa.Ccr.Internal;

namespace Salsa.Ccr;

public sealed partial class Communicator
{

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
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
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
    [MethodImpl(MethodImplOptions.NoInlining)]
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
    [MethodImpl(MethodImplOptions.NoInlining)]
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

    [AsyncMethodBuilder(typeof(PoolingAsyncValueTaskMethodBuilder<>))]
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
