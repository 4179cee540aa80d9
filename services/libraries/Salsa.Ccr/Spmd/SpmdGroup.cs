using System.Buffers;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Salsa.Ccr.Internal;

namespace Salsa.Ccr;

// Design: the shared state of one SPMD run. `Ranks[r]` is written only by rank r (its collective
// generation and reduction scratch) and read by all; each RankState is its own padded object, so no
// two ranks' written fields share a cache line. Typed mailboxes and collective slots are created on
// first use per message type (indexed by a process-wide type key, CAS-published). `_abort` is set
// once, by the first failing rank or by cancellation, and every waiter is then woken so nobody
// waits forever for a rank that is gone.
internal sealed class SpmdGroup
{
    private object?[] _mailboxTables = new object?[16];
    private object?[] _slotTables = new object?[16];
    private object?[] _exchangeTables = new object?[16];
    private readonly object _tablesGate = new();
    private Exception? _abort;

    public SpmdGroup(int size, SpmdExecution execution, SpmdOptions options, int threads)
    {
        Size = size;
        Execution = execution;
        CancellationToken = options.CancellationToken;
        _detectDeadlocks = options.DetectDeadlocks;
        SpinTicks = (long)(options.SpinDuration.TotalSeconds * Stopwatch.Frequency);
        Oversubscribed = execution == SpmdExecution.Tasks || size > Math.Min(Environment.ProcessorCount, threads);
        Ranks = new RankState[size];
        for (var r = 0; r < size; r++)
        {
            Ranks[r] = new RankState(r, new RankWaiter(this));
        }
    }

    public int Size { get; }

    public SpmdExecution Execution { get; }

    public CancellationToken CancellationToken { get; }

    public long SpinTicks { get; }

    /// <summary>More ranks than cores to run them: waiting ranks must give their core away at once.</summary>
    public bool Oversubscribed { get; }

    /// <summary>Wakers skip the store→load fence; blocking waiters pay a process-wide one (see RankWaiter).</summary>
    public bool AsymmetricFences => Execution == SpmdExecution.Threads;

    public RankState[] Ranks { get; }

    public bool IsAborted => Volatile.Read(ref _abort) is not null;

    public Exception? AbortReason => Volatile.Read(ref _abort);

    public void Abort(Exception reason)
    {
        if (Interlocked.CompareExchange(ref _abort, reason, null) is not null)
        {
            return;
        }

        foreach (var rank in Ranks)
        {
            rank.Waiter.ForceWake();
        }
    }

    /// <summary>The deadlock the group found, if that is why it was aborted.</summary>
    public InvalidOperationException? Deadlock { get; private set; }

    private volatile bool _detectDeadlocks;

    /// <summary>
    /// A rank sent from a thread other than its flow: progress may come from threads the runtime does
    /// not see, so it can no longer tell a deadlock from a wait for them.
    /// </summary>
    public void StopDeadlockDetection() => _detectDeadlocks = false;

    /// <summary>How often the watchdog looks for a deadlock; a deadlock is reported within about this long.</summary>
    private static readonly TimeSpan DeadlockWatchPeriod = TimeSpan.FromMilliseconds(100);

    /// <summary>A rank's body returned: it publishes nothing more, so ranks waiting for it may be stuck.</summary>
    public void RankReturned(int rank)
    {
        Interlocked.Exchange(ref Ranks[rank].Returned, 1);
        DetectDeadlock();
    }

    /// <summary>Looks for a deadlock every <see cref="DeadlockWatchPeriod"/> until the run ends (dispose it then).</summary>
    public IDisposable StartDeadlockWatch() =>
        new Timer(static s => ((SpmdGroup)s!).DetectDeadlock(), this, DeadlockWatchPeriod, DeadlockWatchPeriod);

    /// <summary>
    /// Run by the watchdog and when a rank returns: when every rank is stalled or returned and some
    /// are stalled, none can ever go on — only a running rank publishes or wakes — so the group fails
    /// with a report of who waits for what instead of hanging. A rank counts as stalled only after its
    /// own re-check failed and while no waker has claimed it, so a rank about to find its data is
    /// never taken for stuck. The ranks' states are read twice and must be equal (a double collect):
    /// a state word never repeats, so all of them held at one instant — one scan alone could see rank
    /// A stalled, then A woken by B, then B stalled. A deadlock never ends, so the watchdog's next look
    /// finds it; the ranks' own waits pay nothing for it but marking themselves stalled.
    /// </summary>
    public void DetectDeadlock()
    {
        var states = ArrayPool<int>.Shared.Rent(Size);
        try
        {
            if (!TryCollectStalled(states) || !TryCollectStalled(states, compare: true) || IsAborted)
            {
                return;
            }
        }
        finally
        {
            ArrayPool<int>.Shared.Return(states);
        }

        if (!_detectDeadlocks)
        {
            RaceProbe.At(RaceProbe.DeadlockNotReported);
            return;
        }

        var deadlock = DeadlockReport();
        Deadlock = deadlock;
        Abort(deadlock);
    }

    /// <summary>
    /// Reads every running rank's state into <paramref name="states"/> (or compares with what is there);
    /// false as soon as one is not stalled or differs, or when every rank has returned.
    /// </summary>
    private bool TryCollectStalled(int[] states, bool compare = false)
    {
        var stalled = false;
        for (var r = 0; r < Ranks.Length; r++)
        {
            var rank = Ranks[r];
            if (Volatile.Read(ref rank.Returned) != 0)
            {
                continue;
            }

            var state = rank.Waiter.State;
            if (!rank.Waiter.IsStalled(state) || (compare && states[r] != state))
            {
                return false;
            }

            states[r] = state;
            stalled = true;
        }

        return stalled;
    }

    private InvalidOperationException DeadlockReport()
    {
        var states = Ranks
            .Select(rank => (rank.Index, What: Volatile.Read(ref rank.Returned) != 0
                ? $"returned after collective #{Volatile.Read(ref rank.Published.Generation)}"
                : rank.Waiter.WaitingFor.ToString()))
            .GroupBy(r => r.What, r => r.Index)
            .Select(g => $"{(g.Count() == 1 ? "rank" : "ranks")} {string.Join(", ", g)} {g.Key}");
        return new InvalidOperationException(
            $"The SPMD ranks are deadlocked: {string.Join("; ", states)}. Every rank must make the same collective " +
            "and exchange calls in the same order, and every receive needs a matching send.");
    }

    public void ThrowIfAborted()
    {
        if (Volatile.Read(ref _abort) is { } reason)
        {
            ThrowAborted(reason);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void ThrowAborted(Exception reason) => throw AbortedException(reason);

    /// <summary>What a rank sees when its group was aborted by <paramref name="reason"/>.</summary>
    public static Exception AbortedException(Exception reason) =>
        reason is OperationCanceledException cancelled
            ? new OperationCanceledException("The SPMD run was cancelled.", cancelled, cancelled.CancellationToken)
            : new SpmdAbortedException("Another rank of the SPMD group failed; see the inner exception.", reason);

    public void WakeAll()
    {
        foreach (var rank in Ranks)
        {
            rank.Waiter.Wake();
        }
    }

    public MailboxTable<T> Mailboxes<T>() => GetOrCreate(ref _mailboxTables, TypeKey<T>.Id, static size => new MailboxTable<T>(size));

    public ExchangeCells<T> Exchanges<T>() => GetOrCreate(ref _exchangeTables, TypeKey<T>.Id, static size => new ExchangeCells<T>(size));

    public CollectiveSlots<T> Slots<T>() => GetOrCreate(ref _slotTables, TypeKey<T>.Id, static size => new CollectiveSlots<T>(size));

    // Readers are lock-free: a table, once stored, never changes, and a resize copies under the lock
    // every entry stored so far. Creation and resizing happen under `_tablesGate`.
    private TTable GetOrCreate<TTable>(ref object?[] tables, int id, Func<int, TTable> create)
        where TTable : class
    {
        var current = Volatile.Read(ref tables);
        if (id < current.Length && Volatile.Read(ref current[id]) is TTable found)
        {
            return found;
        }

        lock (_tablesGate)
        {
            var array = tables;
            if (id >= array.Length)
            {
                var bigger = new object?[Math.Max(id + 1, array.Length * 2)];
                Array.Copy(array, bigger, array.Length);
                Volatile.Write(ref tables, bigger);
                array = bigger;
            }

            if (array[id] is TTable existing)
            {
                return existing;
            }

            var table = create(Size);
            Volatile.Write(ref array[id], table);
            return table;
        }
    }
}

/// <summary>One rank's published state. The fields other ranks read while this rank writes them sit alone in <see cref="Published"/>.</summary>
internal sealed class RankState(int index, RankWaiter waiter)
{
    public int Index { get; } = index;

    /// <summary>1 once the rank's body returned normally: it will never publish or send again.</summary>
    public int Returned;

    public PublishedState Published;

    public RankWaiter Waiter { get; } = waiter;

    /// <summary>Reduction input, double-buffered by generation parity; written only by this rank.</summary>
    public double[][] Scratch { get; } = [new double[CacheLine.Doubles], new double[CacheLine.Doubles]];

    /// <summary>Length of the payload in each <see cref="Scratch"/> buffer; per parity, as the buffers are.</summary>
    public int[] ScratchLengths { get; } = new int[2];
}

/// <summary>Padding on both sides: a class's field order is the runtime's choice, a struct's explicit layout is not.</summary>
[StructLayout(LayoutKind.Explicit, Size = 3 * CacheLine.Size)]
internal struct PublishedState
{
    /// <summary>The last collective this rank entered with its data written; readers wait on it.</summary>
    [FieldOffset(CacheLine.Size)]
    public long Generation;

    /// <summary>What the rank called as an even collective (see <see cref="CollectiveSignature"/>); on the generation's line.</summary>
    [FieldOffset(CacheLine.Size + sizeof(long))]
    public long EvenSignature;

    /// <summary>The same for an odd collective.</summary>
    [FieldOffset(CacheLine.Size + 2 * sizeof(long))]
    public long OddSignature;

    /// <summary>Written before the generation is published, so a reader that saw the generation sees it.</summary>
    public void SetSignature(long generation, long signature)
    {
        if ((generation & 1) == 0)
        {
            EvenSignature = signature;
        }
        else
        {
            OddSignature = signature;
        }
    }

    public readonly long Signature(long generation) => (generation & 1) == 0 ? EvenSignature : OddSignature;
}
