using System.Diagnostics;
using Salsa.Ccr.Internal;

namespace Salsa.Ccr;

// Design: a Dispatcher owns N dedicated OS threads that drain its DispatcherQueues.
// Each thread also has a one-task local slot (the thread pool's "LIFO slot" idea): a suspended SPMD
// rank woken by code running on this thread is resumed there next, without touching the shared
// queue or waking another thread. A thread runs at most LocalStreak slot tasks in a row before
// looking at the shared queues, and idle threads steal from other threads' slots, so nothing
// parked in a slot starves. Any thread may
// post to a queue; only dispatcher threads take from them. Each thread walks the queue list from
// its own cursor and runs at most a queue's FairnessQuantum tasks before moving on, so one busy
// queue cannot starve the others (the Orleans WorkItemGroup rule). An idle thread polls for
// IdleSpin, then registers in `_sleepers` and waits on `_wake`. A poster that sees a sleeper
// takes one off the count (CAS) and releases the semaphore once; a thread that finds work after
// registering takes itself off the count the same way, or, when a poster already did, consumes the
// release it is owed. Both sides increment/CAS (full fences) before reading the other side's state,
// so a post is never missed by every thread at once. Dispose sets `_stopping`, wakes everyone,
// joins the threads, then closes the queues (cancelling what was pending in them).
public sealed class Dispatcher : IDisposable
{
    private const int LocalStreak = 64;

    [ThreadStatic]
    private static Dispatcher? s_current;

    [ThreadStatic]
    private static LocalSlot? s_localSlot;

    private readonly LocalSlot[] _localSlots;

    private readonly Thread[] _threads;
    private readonly SemaphoreSlim _wake = new(0);
    private readonly long _idleSpinTicks;
    private readonly TaskCompletionSource _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly List<Exception> _unobserved = [];
    private readonly object _queuesGate = new();
    private PaddedInt _sleepers;
    private volatile DispatcherQueue[] _queues = [];
    private volatile bool _stopping;
    private int _disposed;

    public Dispatcher(DispatcherOptions? options = null)
    {
        options ??= new DispatcherOptions();
        if (options.ThreadCount is < 1 or > 1024)
        {
            ThrowHelper.ArgumentOutOfRange(nameof(options), options.ThreadCount, "A dispatcher needs between 1 and 1024 threads.");
        }

        Name = options.Name;
        ThreadCount = options.ThreadCount;
        _idleSpinTicks = (long)(options.IdleSpin.TotalSeconds * Stopwatch.Frequency);
        DefaultQueue = CreateQueue("default", options.DefaultQueue);
        _threads = new Thread[options.ThreadCount];
        _localSlots = new LocalSlot[options.ThreadCount];
        for (var i = 0; i < _localSlots.Length; i++)
        {
            _localSlots[i] = new LocalSlot();
        }

        for (var i = 0; i < _threads.Length; i++)
        {
            var index = i;
            var core = options.PinThreads ? options.FirstCore + i : -1;
            _threads[i] = new Thread(() => Run(index, core), maxStackSize: 0)
            {
                IsBackground = true,
                Name = $"{Name} #{i}",
                Priority = options.Priority,
            };
        }

        foreach (var thread in _threads)
        {
            thread.Start();
        }

        CcrTelemetry.DispatchersCreated.Add(1);
    }

    /// <summary>The dispatcher whose thread is running the caller, if any.</summary>
    public static Dispatcher? Current => s_current;

    public string Name { get; }

    public int ThreadCount { get; }

    public DispatcherQueue DefaultQueue { get; }

    /// <summary>
    /// Completes when the dispatcher is disposed and its threads have exited. Faults with every
    /// handler exception that no error port, queue port or <see cref="UnhandledException"/> handler
    /// took — nothing is swallowed.
    /// </summary>
    public Task Completion => _completion.Task;

    public bool IsDisposed => _disposed != 0;

    /// <summary>
    /// Raised for handler exceptions that no error port took. Handlers run on the failing thread, one
    /// after another; a handler that throws is recorded as an unobserved fault (an AggregateException of
    /// its own exception and the one it was handed) and the others still run.
    /// </summary>
    public event EventHandler<DispatcherExceptionEventArgs>? UnhandledException;

    /// <summary>True when the calling thread belongs to this dispatcher.</summary>
    public bool IsDispatcherThread => ReferenceEquals(s_current, this);

    public DispatcherQueue CreateQueue(string name, DispatcherQueueOptions? options = null)
    {
        ObjectDisposedException.ThrowIf(_disposed != 0, this);
        var queue = new DispatcherQueue(this, name, options ?? new DispatcherQueueOptions());
        lock (_queuesGate)
        {
            _queues = [.. _queues, queue];
        }

        return queue;
    }

    internal void RemoveQueue(DispatcherQueue queue)
    {
        lock (_queuesGate)
        {
            _queues = [.. _queues.Where(q => !ReferenceEquals(q, queue))];
        }
    }

    /// <summary>Wakes one sleeping thread, if any; called after every post.</summary>
    internal void Signal()
    {
        var sleepers = Volatile.Read(ref _sleepers.Value);
        while (sleepers > 0)
        {
            var seen = Interlocked.CompareExchange(ref _sleepers.Value, sleepers - 1, sleepers);
            if (seen == sleepers)
            {
                _wake.Release();
                return;
            }

            sleepers = seen;
        }
    }

    internal void ReportUnhandled(DispatcherQueue queue, Exception exception)
    {
        var handler = UnhandledException;
        if (handler is not null)
        {
            // Each subscriber on its own: one that throws neither takes the dispatcher thread (and the
            // process) down nor keeps the others from hearing; what it threw is recorded, with the
            // exception it was handed, as an unobserved fault (Completion, the counter, the trace).
            var args = new DispatcherExceptionEventArgs(queue, exception);
            foreach (var subscriber in handler.GetInvocationList().Cast<EventHandler<DispatcherExceptionEventArgs>>())
            {
#pragma warning disable CA1031 // a subscriber's fault is recorded, never rethrown on a dispatcher thread
                try
                {
                    subscriber(this, args);
                }
                catch (Exception fault)
                {
                    RecordUnobserved(queue, new AggregateException("An UnhandledException subscriber threw.", fault, exception));
                }
#pragma warning restore CA1031
            }

            return;
        }

        RecordUnobserved(queue, exception);
    }

    private void RecordUnobserved(DispatcherQueue queue, Exception exception)
    {
        lock (_unobserved)
        {
            _unobserved.Add(exception);
        }

        CcrTelemetry.UnobservedFaults.Add(1);
        Trace.TraceError($"Salsa.Ccr: unhandled exception in a handler on '{Name}/{queue.Name}': {exception}");
    }

    private void Run(int index, int core)
    {
        if (core >= 0)
        {
            CoreAffinity.PinCurrentThread(core);
        }

        s_current = this;
        s_localSlot = _localSlots[index];
        var cursor = index;
        try
        {
            while (!_stopping)
            {
                for (var i = 0; i < LocalStreak && RunLocal(); i++)
                {
                }

                if (RunSome(ref cursor) || s_localSlot.Task is not null || TrySteal())
                {
                    continue;
                }

                Idle();
            }
        }
        finally
        {
            s_current = null;
            s_localSlot = null;
            SynchronizationContext.SetSynchronizationContext(null);
        }
    }

    /// <summary>
    /// Puts a resume in the calling thread's local slot when it is one of this dispatcher's threads.
    /// False when the caller must queue it normally.
    /// </summary>
    internal bool TryPlaceLocal(IResumable task)
    {
        if (s_localSlot is not { } slot || !ReferenceEquals(s_current, this))
        {
            return false;
        }

        var displaced = Interlocked.Exchange(ref slot.Task, task);
        if (displaced is not null && !displaced.Queue.TryEnqueue(displaced))
        {
            (displaced as ICancellable)?.Cancel();
        }
        else if (displaced is null && Volatile.Read(ref _sleepers.Value) > 0)
        {
            // A sleeping thread could run this while the current one is busy: wake it to steal.
            // When every thread is busy (the hot case) nobody sleeps and this costs one read.
            Signal();
        }

        return true;
    }

    /// <summary>Runs the task in the calling thread's slot, if any. Called between tasks for LIFO hand-off.</summary>
    internal static bool RunLocal()
    {
        if (s_localSlot is not { } slot || Volatile.Read(ref slot.Task) is null)
        {
            return false;
        }

        var task = Interlocked.Exchange(ref slot.Task, null);
        if (task is null)
        {
            return false;
        }

        task.Queue.RunOne(task);
        return true;
    }

    private bool TrySteal()
    {
        foreach (var slot in _localSlots)
        {
            if (Volatile.Read(ref slot.Task) is not null && Interlocked.Exchange(ref slot.Task, null) is { } task)
            {
                task.Queue.RunOne(task);
                return true;
            }
        }

        return false;
    }

    private bool RunSome(ref int cursor)
    {
        var queues = _queues;
        var ran = false;
        for (var i = 0; i < queues.Length; i++)
        {
            var queue = queues[(cursor + i) % queues.Length];
            if (queue.RunBatch())
            {
                ran = true;
                cursor = (cursor + i + 1) % Math.Max(queues.Length, 1);
                break;
            }
        }

        return ran;
    }

    private bool HasWork()
    {
        foreach (var queue in _queues)
        {
            if (queue.Count > 0)
            {
                return true;
            }
        }

        foreach (var slot in _localSlots)
        {
            if (Volatile.Read(ref slot.Task) is not null)
            {
                return true;
            }
        }

        return false;
    }

    private void Idle()
    {
        var start = Stopwatch.GetTimestamp();
        var spinner = new SpinWait();
        while (Stopwatch.GetTimestamp() - start < _idleSpinTicks)
        {
            if (HasWork() || _stopping)
            {
                return;
            }

            // Pause, never yield or sleep here: yielding would give the core away mid-hand-off.
            Thread.SpinWait(spinner.Count < 10 ? 1 << spinner.Count : 64);
            spinner.SpinOnce(sleep1Threshold: -1);
        }

        Interlocked.Increment(ref _sleepers.Value);
        if (HasWork() || _stopping)
        {
            if (TryUnregisterSleeper())
            {
                return;
            }
        }

        _wake.Wait();
    }

    private bool TryUnregisterSleeper()
    {
        var sleepers = Volatile.Read(ref _sleepers.Value);
        while (sleepers > 0)
        {
            var seen = Interlocked.CompareExchange(ref _sleepers.Value, sleepers - 1, sleepers);
            if (seen == sleepers)
            {
                return true;
            }

            sleepers = seen;
        }

        // A poster already took this thread off the count and owes it a release: consume it.
        return false;
    }

    /// <summary>
    /// Stops the threads (a running handler finishes first), then closes every queue: queued tasks
    /// are dropped and pending receives are cancelled. Deterministic: when it returns from a
    /// non-dispatcher thread, no dispatcher thread is running — also when another thread (or a
    /// handler) was already disposing: such a call waits for that disposal to finish.
    /// </summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            // A dispatcher thread must not wait: the disposal under way may be joining it.
            if (!IsDispatcherThread)
            {
                ((IAsyncResult)_completion.Task).AsyncWaitHandle.WaitOne();
            }

            return;
        }

        _stopping = true;
        _wake.Release(_threads.Length);
        foreach (var thread in _threads)
        {
            if (thread != Thread.CurrentThread)
            {
                thread.Join();
            }
        }

        foreach (var queue in _queues)
        {
            queue.Close();
        }

        foreach (var slot in _localSlots)
        {
            (Interlocked.Exchange(ref slot.Task, null) as ICancellable)?.Cancel();
        }

        List<Exception> unobserved;
        lock (_unobserved)
        {
            unobserved = [.. _unobserved];
        }

        if (unobserved.Count > 0)
        {
            _completion.TrySetException(new AggregateException("Handlers failed and no error port took the exceptions.", unobserved));
        }
        else
        {
            _completion.TrySetResult();
        }
    }
}

/// <summary>A task that knows the queue it resumes on (what a local slot may hold).</summary>
internal interface IResumable : ITask
{
    DispatcherQueue Queue { get; }
}

/// <summary>A dispatcher thread's one-task slot, alone on its cache lines (the owner writes, stealers read).</summary>
internal sealed class LocalSlot
{
#pragma warning disable CS0169, IDE0051 // Padding.
    private Salsa.Ccr.Internal.PaddedLong _before;
#pragma warning restore CS0169, IDE0051

    public IResumable? Task;

#pragma warning disable CS0169, IDE0051
    private Salsa.Ccr.Internal.PaddedLong _after;
#pragma warning restore CS0169, IDE0051
}
