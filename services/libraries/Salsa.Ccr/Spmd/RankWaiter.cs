using System.Diagnostics;
using System.Runtime.InteropServices;
using Salsa.Ccr.Internal;

namespace Salsa.Ccr;

/// <summary>A condition a rank waits for; a struct so each wait site inlines its own check.</summary>
internal interface IWaitCondition
{
    bool IsSatisfied();

    /// <summary>What the rank waits for, in words a deadlock report can use.</summary>
    WaitInfo Info { get; }
}

internal enum WaitKind : byte
{
    AllRanks,
    Rank,
    Message,
    Neighbours,
}

/// <summary>A suspended rank's operation, as the deadlock watchdog sees it.</summary>
internal interface ISuspendedOperation
{
    /// <summary>Whether the operation could complete now.</summary>
    bool IsReady { get; }

    WaitInfo Info { get; }
}

/// <summary>What a stalled rank waits for: kept without allocating, worded only when a deadlock is reported.</summary>
internal readonly record struct WaitInfo(WaitKind Kind, long Number, int Peer = -1)
{
    public override string ToString() => Kind switch
    {
        WaitKind.AllRanks => $"wait for every rank to reach collective #{Number}",
        WaitKind.Rank => $"wait for rank {Peer} to reach collective #{Number}",
        WaitKind.Message => $"wait for a message from rank {Peer}",
        _ => $"wait for their neighbours' exchange #{Number}",
    };
}

internal enum SuspendOutcome
{
    /// <summary>The rank is suspended (or a waker already claimed it); the operation will be queued.</summary>
    Suspended,

    /// <summary>The operation became ready while suspending and the rank still owns it: complete it now.</summary>
    Ready,
}

// Design: one waiter per rank. Only its rank waits on it; any rank may wake it. `_state` says
// whether the rank runs, is blocked on `_gate` (thread execution) or is suspended in an operation
// (task execution). A waiter spins (unless oversubscribed), yields (unless a recent yield lost the
// core to another process for a scheduler slice), then announces itself in
// `_state` and re-checks its condition before sleeping; a waker publishes its data and then reads
// `_state`. That is a Dekker handshake and needs a store→load fence on both sides. Under thread
// execution the waker's fence would sit on the hottest path (every message), and it is the costly
// one: it waits for the store to a line the peer is spinning on. So the fences are asymmetric there:
// wakers fence nothing, and a waiter about to block pays a process-wide barrier (membarrier), which
// drains every core's store buffer — only on the slow path, after it has spun and yielded. Under task
// execution suspensions are frequent, so both sides take an ordinary full fence instead. The CAS
// out of Blocked/Suspended elects exactly one waker, which pulses the gate or queues the suspended
// operation (see RankOperation) on the rank's dispatcher queue.
internal sealed class RankWaiter
{
    private const int Running = 0;
    private const int Blocked = 1;
    private const int Suspended = 2;
    private const int KindMask = 3;

    // Set, by a CAS out of Blocked or Suspended, once the rank's re-check after announcing itself
    // failed: it now sleeps until woken, and only a running rank can wake it. Wakers clear it.
    private const int StalledBit = 4;
    private const int EpochShift = 3;
    private const int YieldCount = 16;

    // A yield hands the core to whatever else is runnable. Among the ranks' own threads that is cheap
    // and runs the peer this rank waits for; but when a busy thread of another process is runnable
    // too, the yield gives it a whole scheduler slice: 8 ranks on 2 cores beside one busy process
    // took 2 ms an exchange instead of 4 µs. A yield that takes this long (one among the ranks' own
    // threads takes microseconds) says so; the waiter then blocks at once (futex and wake, tens of
    // microseconds) for its next waits — 32, doubling while it keeps happening, up to 4,096 — and
    // then tries yielding again.
    private const int MinSkipSpan = 32;
    private const int MaxSkipSpan = 4_096;
    private static readonly long s_slowYieldTicks = Stopwatch.Frequency / 1_000; // 1 ms

    private readonly SpmdGroup _group;
    private readonly object _gate = new();
    // Low two bits: Running, Blocked or Suspended. The rest: an epoch that every wait increments, so
    // a compare-and-swap meant for one wait can never succeed on a later one (ABA): a thread that
    // announced a suspension and was descheduled before its re-check must find its CAS failing, not
    // withdraw the suspension some other thread made since.
    private WaiterState _my;
    private WaitInfo _waitingFor;
    private object?[] _operations = new object?[4];

    // The rank's own thread only.
    private int _waitsWithoutYielding;
    private int _skipSpan = MinSkipSpan;

    public RankWaiter(SpmdGroup group)
    {
        _group = group;
    }

    /// <summary>Wakes the rank if it sleeps. The caller has published what the rank waits for.</summary>
    public void Wake()
    {
        if (!_group.AsymmetricFences)
        {
            Interlocked.MemoryBarrier();
        }

        int state;
        do
        {
            state = Volatile.Read(ref _my.State);
            if ((state & KindMask) == Running)
            {
                return;
            }
        }
        while (Interlocked.CompareExchange(ref _my.State, (state & ~(KindMask | StalledBit)) | Running, state) != state);

        if ((state & KindMask) == Blocked)
        {
            lock (_gate)
            {
                Monitor.Pulse(_gate);
            }
        }
        else
        {
            var operation = _my.Suspended!;
            operation.Queue.EnqueueResume(operation);
        }
    }

    /// <summary>
    /// The rank's state word. It never takes the same value twice (every wait has a new epoch), so two
    /// equal reads mean the rank did not move in between.
    /// </summary>
    public int State => Volatile.Read(ref _my.State);

    /// <summary>
    /// Whether the rank, in <paramref name="state"/> (read from <see cref="State"/>), is stuck until a
    /// running rank wakes it. Blocked (thread execution): it marked itself stalled after its last
    /// re-check failed. Suspended (task execution): its operation is not ready now — the watchdog
    /// checks for it, so that suspending costs the rank nothing more; read from another thread, the
    /// check is exact when no rank runs, which is the only case that counts (the caller reads all
    /// states twice around it).
    /// </summary>
    public bool IsStalled(int state) => (state & KindMask) switch
    {
        Blocked => (state & StalledBit) != 0,
        Suspended => Volatile.Read(ref _my.Suspended) is ISuspendedOperation { IsReady: false },
        _ => false,
    };

    /// <summary>What the rank waits for; meaningful while it is stalled.</summary>
    public WaitInfo WaitingFor => (Volatile.Read(ref _my.State) & KindMask) == Suspended && Volatile.Read(ref _my.Suspended) is ISuspendedOperation operation
        ? operation.Info
        : _waitingFor;

    /// <summary>
    /// Marks the announced wait <paramref name="announced"/> as stalled, unless a waker claimed it
    /// first (the group's watchdog looks for ranks all stalled). Returns the state to sleep on.
    /// </summary>
    private int Stall(int announced)
    {
        var stalled = announced | StalledBit;
        return Interlocked.CompareExchange(ref _my.State, stalled, announced) == announced ? stalled : announced;
    }

    /// <summary>Wakes the rank whatever it waits for (abort).</summary>
    public void ForceWake() => Wake();

    /// <summary>Blocks the calling thread until the condition holds (thread execution).</summary>
    public void Wait<TCondition>(TCondition condition)
        where TCondition : struct, IWaitCondition
    {
        if (condition.IsSatisfied())
        {
            return;
        }

        if (!_group.Oversubscribed)
        {
            var start = Stopwatch.GetTimestamp();
            var spins = 0;
            while (true)
            {
                Thread.SpinWait(1);
                if (condition.IsSatisfied())
                {
                    return;
                }

                // Reading the clock costs ~20 ns; look at it every 64 pauses.
                if ((++spins & 63) == 0 && Stopwatch.GetTimestamp() - start > _group.SpinTicks)
                {
                    break;
                }
            }
        }

        if (_waitsWithoutYielding > 0)
        {
            _waitsWithoutYielding--;
        }
        else if (YieldPhase(condition))
        {
            return;
        }

        while (true)
        {
            _group.ThrowIfAborted();
            var blocked = (++_my.Epoch << EpochShift) | Blocked;
            _waitingFor = condition.Info;
            Interlocked.Exchange(ref _my.State, blocked);
            if (_group.AsymmetricFences)
            {
                Interlocked.MemoryBarrierProcessWide();
            }

            if (condition.IsSatisfied() || _group.IsAborted)
            {
                // Withdraw, unless a waker already did (it then pulses a gate nobody waits on).
                Interlocked.CompareExchange(ref _my.State, blocked & ~KindMask, blocked);
                _group.ThrowIfAborted();
                return;
            }

            var asleep = Stall(blocked);
            lock (_gate)
            {
                while (Volatile.Read(ref _my.State) == asleep)
                {
                    Monitor.Wait(_gate);
                }
            }

            if (condition.IsSatisfied())
            {
                return;
            }
        }
    }

    /// <summary>
    /// Yields the core a few times, re-checking; true once the condition holds. A yield that took a
    /// scheduler slice (over a millisecond) ends the phase and has the next waits skip it, for twice as
    /// many waits each time in a row it happens.
    /// </summary>
    private bool YieldPhase<TCondition>(TCondition condition)
        where TCondition : struct, IWaitCondition
    {
        for (var i = 0; i < YieldCount; i++)
        {
            _group.ThrowIfAborted();
            var before = Stopwatch.GetTimestamp();
            Thread.Yield();
            if (Stopwatch.GetTimestamp() - before > s_slowYieldTicks)
            {
                _waitsWithoutYielding = _skipSpan;
                _skipSpan = Math.Min(2 * _skipSpan, MaxSkipSpan);
                return condition.IsSatisfied();
            }

            if (condition.IsSatisfied())
            {
                _skipSpan = MinSkipSpan;
                return true;
            }
        }

        _skipSpan = MinSkipSpan;
        return false;
    }

    /// <summary>Waits for the condition: blocking under thread execution, suspending under task execution.</summary>
    public ValueTask WaitAsync<TCondition>(TCondition condition)
        where TCondition : struct, IWaitCondition
    {
        if (condition.IsSatisfied())
        {
            return default;
        }

        if (_group.Execution == SpmdExecution.Threads)
        {
            Wait(condition);
            return default;
        }

        var operation = Operation<ConditionOperation<TCondition>, bool>();
        var token = operation.Start(new ConditionOperation<TCondition>(condition), out var done, out _);
        return done ? default : new ValueTask(operation, token);
    }

    /// <summary>Runs an operation to completion: blocking under thread execution, suspending under task execution.</summary>
    public ValueTask<TResult> RunAsync<TOperation, TResult>(TOperation operation)
        where TOperation : struct, IWaitOperation<TResult>
    {
        if (operation.TryComplete(out var result))
        {
            return new ValueTask<TResult>(result);
        }

        if (_group.Execution == SpmdExecution.Threads)
        {
            while (true)
            {
                Wait(operation);
                _group.ThrowIfAborted();
                if (operation.TryComplete(out result))
                {
                    return new ValueTask<TResult>(result);
                }
            }
        }

        var source = Operation<TOperation, TResult>();
        var token = source.Start(operation, out var done, out result);
        return done ? new ValueTask<TResult>(result) : new ValueTask<TResult>(source, token);
    }

    /// <summary>
    /// Suspends the rank in an operation: announces it, fences, and re-checks without side effects.
    /// If it became ready, the suspension is withdrawn — unless a waker claimed it first, in which
    /// case the waker's queued run completes it and this caller must not touch the operation again
    /// (a receive completed twice would take two messages).
    /// </summary>
    internal SuspendOutcome Suspend<TCondition>(IResumable owner, TCondition condition)
        where TCondition : struct, IWaitCondition
    {
        _my.Suspended = owner;
        var suspended = (++_my.Epoch << EpochShift) | Suspended;
        Interlocked.Exchange(ref _my.State, suspended);
        if (!condition.IsSatisfied() && !_group.IsAborted)
        {
            return SuspendOutcome.Suspended;
        }

        if (Interlocked.CompareExchange(ref _my.State, suspended & ~KindMask, suspended) != suspended)
        {
            return SuspendOutcome.Suspended;
        }

        if (condition.IsSatisfied())
        {
            return SuspendOutcome.Ready;
        }

        // Aborted: nobody will wake this rank again, so queue it ourselves to fail it.
        owner.Queue.EnqueueResume(owner);
        return SuspendOutcome.Suspended;
    }

    private RankOperation<TOperation, TResult> Operation<TOperation, TResult>()
        where TOperation : struct, IWaitOperation<TResult>
    {
        var key = OperationKey<TOperation, TResult>.Id;
        if (key >= _operations.Length)
        {
            Array.Resize(ref _operations, Math.Max(key + 1, _operations.Length * 2));
        }

        return (RankOperation<TOperation, TResult>)(_operations[key] ??= new RankOperation<TOperation, TResult>(this, _group));
    }

    private static class OperationKey<TOperation, TResult>
    {
        public static readonly int Id = TypeKeys.Next();
    }
}

/// <summary>
/// What a rank writes on every wait and its wakers read, alone on its cache lines: the ranks' waiters
/// are allocated side by side, and a class's own fields could otherwise share a line with a neighbour's.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 3 * CacheLine.Size)]
internal struct WaiterState
{
    [FieldOffset(CacheLine.Size)]
    public int State;

    [FieldOffset(CacheLine.Size + sizeof(int))]
    public int Epoch;

    [FieldOffset(CacheLine.Size + 2 * sizeof(int))]
    public IResumable? Suspended;
}
