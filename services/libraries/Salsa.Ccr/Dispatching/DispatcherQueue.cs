using System.Collections.Concurrent;
using System.Diagnostics.CodeAnalysis;
using Salsa.Ccr.Internal;

namespace Salsa.Ccr;

// Design: many posters, many dispatcher-thread consumers. Tasks live in a ConcurrentQueue (lock-free
// on both ends); `_count` (padded, interlocked) is what bounded policies reserve against and what
// idle threads poll. Throttled posters register in `_roomWaiters` and wait on `_room`; a consumer
// that frees a slot hands out one release the same CAS way the dispatcher wakes sleepers, so a
// waiter is never stranded. Arbiters activated here are tracked so Close can cancel them; tasks
// still queued at Close are dropped and, when cancellable, cancelled.
[SuppressMessage("Reliability", "CA1001", Justification = "The semaphore never allocates a wait handle (AvailableWaitHandle is not used), so there is nothing to dispose; queues live as long as their dispatcher.")]
public sealed class DispatcherQueue
{
    [ThreadStatic]
    private static DispatcherQueue? s_current;

    private readonly ConcurrentQueue<ITask> _items = new();
    private readonly SemaphoreSlim _room = new(0);
    private readonly HashSet<ICancellable> _pending = [];
    private readonly DispatcherQueueOptions _options;
    private PaddedInt _count;
    private PaddedInt _roomWaiters;
    private long _discarded;
    private volatile bool _closed;

    internal DispatcherQueue(Dispatcher dispatcher, string name, DispatcherQueueOptions options)
    {
        if (options.Policy != QueuePolicy.Unbounded && options.MaxDepth < 1)
        {
            ThrowHelper.ArgumentOutOfRange(nameof(options), options.MaxDepth, "A bounded queue needs MaxDepth of at least 1.");
        }

        if (options.FairnessQuantum < 1)
        {
            ThrowHelper.ArgumentOutOfRange(nameof(options), options.FairnessQuantum, "The fairness quantum must be at least 1.");
        }

        Dispatcher = dispatcher;
        Name = name;
        _options = options;
        SynchronizationContext = new DispatcherSynchronizationContext(this);
    }

    /// <summary>The queue whose task the calling thread is running, if any.</summary>
    public static DispatcherQueue? Current => s_current;

    public Dispatcher Dispatcher { get; }

    public string Name { get; }

    public QueuePolicy Policy => _options.Policy;

    public int MaxDepth => _options.MaxDepth;

    /// <summary>Tasks waiting to run.</summary>
    public int Count => Volatile.Read(ref _count.Value);

    /// <summary>Tasks dropped by a discard policy.</summary>
    public long DiscardedCount => Interlocked.Read(ref _discarded);

    public bool IsClosed => _closed;

    /// <summary>Continuations posted here run on this queue: awaits inside handlers resume on the dispatcher.</summary>
    public SynchronizationContext SynchronizationContext { get; }

    /// <summary>
    /// Where handler exceptions go when the failing task has no error port of its own. When null,
    /// they go to <see cref="Dispatcher.UnhandledException"/>, and failing that fault <see cref="Dispatcher.Completion"/>.
    /// </summary>
    public Port<Exception>? UnhandledExceptionPort { get; set; }

    /// <summary>
    /// Queues a task. False when a discard policy refused it or the queue is closed. With
    /// <see cref="QueuePolicy.Throttle"/> and no room this returns false too; use
    /// <see cref="Enqueue"/> or <see cref="EnqueueAsync"/> to wait.
    /// </summary>
    public bool TryEnqueue(ITask task)
    {
        ArgumentNullException.ThrowIfNull(task);
        if (_closed)
        {
            return false;
        }

        switch (_options.Policy)
        {
            case QueuePolicy.Unbounded:
                Interlocked.Increment(ref _count.Value);
                break;
            case QueuePolicy.DiscardOldest:
                ReserveByDroppingOldest();
                break;
            default:
                // Throttle's own threads are consumers and must never be held back.
                if (!TryReserve() && !(_options.Policy == QueuePolicy.Throttle && Dispatcher.IsDispatcherThread && ForceReserve()))
                {
                    if (_options.Policy == QueuePolicy.DiscardNewest)
                    {
                        Interlocked.Increment(ref _discarded);
                        CcrTelemetry.TasksDiscarded.Add(1);
                    }

                    return false;
                }

                break;
        }

        _items.Enqueue(task);
        Dispatcher.Signal();
        return true;
    }

    /// <summary>Queues a task, waiting for room under <see cref="QueuePolicy.Throttle"/>. Returns false when refused or closed.</summary>
    public bool Enqueue(ITask task, CancellationToken cancellationToken = default)
    {
        while (!TryEnqueue(task))
        {
            if (_closed || _options.Policy != QueuePolicy.Throttle)
            {
                return false;
            }

            Interlocked.Increment(ref _roomWaiters.Value);
            if (HasRoom() && TryUnregisterRoomWaiter())
            {
                continue;
            }

            _room.Wait(cancellationToken);
        }

        return true;
    }

    /// <summary>Queues a task, awaiting room under <see cref="QueuePolicy.Throttle"/>. Returns false when refused or closed.</summary>
    public async ValueTask<bool> EnqueueAsync(ITask task, CancellationToken cancellationToken = default)
    {
        while (!TryEnqueue(task))
        {
            if (_closed || _options.Policy != QueuePolicy.Throttle)
            {
                return false;
            }

            Interlocked.Increment(ref _roomWaiters.Value);
            if (HasRoom() && TryUnregisterRoomWaiter())
            {
                continue;
            }

            await _room.WaitAsync(cancellationToken).ConfigureAwait(false);
        }

        return true;
    }

    /// <summary>
    /// Queues a suspended rank's resumption: in the calling thread's local slot when it is one of this
    /// dispatcher's threads (the rank then runs next, on this thread), otherwise like any task.
    /// </summary>
    internal void EnqueueResume(IResumable task)
    {
        if (_closed || _options.Policy != QueuePolicy.Unbounded || !Dispatcher.TryPlaceLocal(task))
        {
            if (!TryEnqueue(task))
            {
                (task as ICancellable)?.Cancel();
            }
        }
    }

    /// <summary>Runs one task taken from a local slot, with this queue's context and fault routing.</summary>
    internal void RunOne(ITask task)
    {
        var previousQueue = s_current;
        s_current = this;
        SynchronizationContext.SetSynchronizationContext(SynchronizationContext);
        try
        {
            Execute(task);
        }
        finally
        {
            s_current = previousQueue;
        }
    }

    /// <summary>Runs an action on the dispatcher. Exceptions follow the queue's routing.</summary>
    public bool Post(Action action) => TryEnqueue(new ActionTask(action));

    /// <summary>
    /// Runs an async handler on the dispatcher: it starts on a dispatcher thread and every await
    /// without ConfigureAwait(false) resumes on this queue, so no OS thread blocks while it waits —
    /// the modern form of CCR's iterator handlers. The returned task carries the handler's outcome,
    /// and is cancelled if the dispatcher is disposed first.
    /// </summary>
    public Task Spawn(Func<Task> handler)
    {
        ArgumentNullException.ThrowIfNull(handler);
        var spawned = new SpawnedHandler<bool>(this, async () =>
        {
            await handler().ConfigureAwait(true);
            return true;
        });
        return spawned.Start();
    }

    /// <inheritdoc cref="Spawn(Func{Task})"/>
    public Task<T> Spawn<T>(Func<Task<T>> handler)
    {
        ArgumentNullException.ThrowIfNull(handler);
        return new SpawnedHandler<T>(this, handler).Start();
    }

    /// <summary>Activates arbiters (receivers, joins, choices, interleaves) so they start consuming messages.</summary>
    /// <exception cref="ObjectDisposedException">
    /// The queue's dispatcher was disposed. The arbiter is cancelled (it consumes nothing; an awaited
    /// receive ends with <see cref="OperationCanceledException"/>) and the arbiters after it are not activated.
    /// </exception>
    public void Activate(params ReadOnlySpan<ArbiterTask> arbiters)
    {
        foreach (var arbiter in arbiters)
        {
            ArgumentNullException.ThrowIfNull(arbiter);
            if (!arbiter.TryActivate(this))
            {
                throw new ObjectDisposedException(Dispatcher.Name, $"Queue '{Name}' is closed: its dispatcher was disposed, so it runs nothing more.");
            }
        }
    }

    internal bool TrackPending(ICancellable item)
    {
        lock (_pending)
        {
            if (_closed)
            {
                return false;
            }

            _pending.Add(item);
            return true;
        }
    }

    internal void UntrackPending(ICancellable item)
    {
        lock (_pending)
        {
            _pending.Remove(item);
        }
    }

    /// <summary>Runs up to a fairness quantum of tasks on the calling dispatcher thread. True when it ran any.</summary>
    internal bool RunBatch()
    {
        if (Volatile.Read(ref _count.Value) == 0)
        {
            return false;
        }

        var ran = 0;
        var previousQueue = s_current;
        s_current = this;
        SynchronizationContext.SetSynchronizationContext(SynchronizationContext);
        try
        {
            while (ran < _options.FairnessQuantum && _items.TryDequeue(out var task))
            {
                ran++;
                Interlocked.Decrement(ref _count.Value);
                if (Volatile.Read(ref _roomWaiters.Value) > 0)
                {
                    ReleaseRoomWaiter();
                }

                Execute(task);

                // A task that woke a rank on this thread left it in the local slot: run it now.
                for (var i = 0; i < 8 && Dispatcher.RunLocal(); i++)
                {
                    SynchronizationContext.SetSynchronizationContext(SynchronizationContext);
                    s_current = this;
                }
            }
        }
        finally
        {
            s_current = previousQueue;
        }

        return ran > 0;
    }

    private void Execute(ITask task)
    {
        try
        {
            task.Execute();
        }
#pragma warning disable CA1031 // A handler's failure belongs to its owner, never to the dispatcher thread.
        catch (Exception exception)
#pragma warning restore CA1031
        {
            RouteFault(task, exception);
        }
    }

    internal void RouteFault(ITask? task, Exception exception)
    {
        CcrTelemetry.HandlerFaults.Add(1);
        if (task is IFaultRoutingTask routing && routing.TryRouteFault(exception))
        {
            return;
        }

        if (UnhandledExceptionPort is { } port)
        {
            port.Post(exception);
            return;
        }

        Dispatcher.ReportUnhandled(this, exception);
    }

    internal void Close()
    {
        ICancellable[] pending;
        lock (_pending)
        {
            _closed = true;
            pending = [.. _pending];
            _pending.Clear();
        }

        foreach (var item in pending)
        {
            item.Cancel();
        }

        while (_items.TryDequeue(out var task))
        {
            Interlocked.Decrement(ref _count.Value);
            (task as ICancellable)?.Cancel();
        }

        // Wake throttled posters so they see the queue closed.
        _room.Release(Math.Max(Volatile.Read(ref _roomWaiters.Value), 0) + 1);
    }

    private bool TryReserve()
    {
        var count = Volatile.Read(ref _count.Value);
        while (count < _options.MaxDepth)
        {
            var seen = Interlocked.CompareExchange(ref _count.Value, count + 1, count);
            if (seen == count)
            {
                return true;
            }

            count = seen;
        }

        return false;
    }

    private bool ForceReserve()
    {
        Interlocked.Increment(ref _count.Value);
        return true;
    }

    private bool HasRoom() => Volatile.Read(ref _count.Value) < _options.MaxDepth || _closed;

    /// <summary>
    /// A slot for a new task under DiscardOldest: a free one, or the oldest task's, taken over as it is
    /// dropped — the count is never lowered and raised again, so no other poster can slip into the gap
    /// and the queue never holds more than MaxDepth. Full by count with nothing to drop means a slot is
    /// in flight (a poster reserved it and has not queued yet, or a consumer dequeued and has not counted
    /// it off yet): only for an instant, so spin.
    /// </summary>
    private void ReserveByDroppingOldest()
    {
        var spin = new SpinWait();
        while (!TryReserve())
        {
            if (_items.TryDequeue(out var dropped))
            {
                Interlocked.Increment(ref _discarded);
                CcrTelemetry.TasksDiscarded.Add(1);
                (dropped as ICancellable)?.Cancel();
                return;
            }

            spin.SpinOnce();
        }
    }

    private void ReleaseRoomWaiter()
    {
        if (TryUnregisterRoomWaiter())
        {
            _room.Release();
        }
    }

    private bool TryUnregisterRoomWaiter()
    {
        var waiters = Volatile.Read(ref _roomWaiters.Value);
        while (waiters > 0)
        {
            var seen = Interlocked.CompareExchange(ref _roomWaiters.Value, waiters - 1, waiters);
            if (seen == waiters)
            {
                return true;
            }

            waiters = seen;
        }

        return false;
    }
}

/// <summary>Something a queue must cancel when it closes: a pending receive, an activated arbiter, a spawned handler.</summary>
internal interface ICancellable
{
    void Cancel();
}
