using System.Collections.Concurrent;
using System.Runtime.CompilerServices;

namespace Salsa.Ccr;

// Design: any number of posters, lock-free: Post appends to a ConcurrentQueue and, only when a
// receiver is registered, requests a drain. `_drainRequests` elects one drainer at a time (the
// poster that moves it from 0 to 1) and makes it loop until every request made meanwhile has been
// served, so a message posted during a drain is never stranded. All taking of items (drain, Test,
// join evaluation) happens under `ConsumerLock`; posting never takes it. A drain holds only its own
// port's lock and never blocks inside it: receivers collect the tasks they fire into a batch that
// is queued after the lock is released (a throttled queue may make the poster wait — outside any
// lock), and join receivers are evaluated after release, taking their ports' locks in Id order.
// With one lock held at a time, or several in a global order, no cycle of waits can form.
public class Port<T> : IPort
{
    private const int BacklogSampleInterval = 1024;

    private static long s_nextId;

    private readonly ConcurrentQueue<T> _items = new();
    private volatile PortReceiver<T>[] _receivers = [];
    private int _drainRequests;
    private int _postsWithoutReceiver;
    private long _backlogWarnedAt;

    public Port()
    {
        Id = Interlocked.Increment(ref s_nextId);
    }

    /// <summary>Global order for taking several ports' locks.</summary>
    internal long Id { get; }

    internal object ConsumerLock { get; } = new();

    internal ConcurrentQueue<T> Items => _items;

    /// <summary>Messages waiting in the port.</summary>
    public int ItemCount => _items.Count;

    /// <summary>Receivers currently registered.</summary>
    public int ReceiverCount => _receivers.Length;

    /// <summary>
    /// Adds an item, from any thread, without a lock; a registered receiver is offered it at once.
    /// Ports are unbounded: with no receiver the item waits in memory, and a large backlog is reported
    /// (see <see cref="CcrTelemetry.PortBacklogWarningThreshold"/>).
    /// </summary>
    public void Post(T item)
    {
        _items.Enqueue(item);
        if (_receivers.Length != 0)
        {
            RequestDrain();
        }
        else if ((++_postsWithoutReceiver & (BacklogSampleInterval - 1)) == 0)
        {
            // A sample, not a count (posters race on it): only how often the backlog is looked at.
            CheckBacklog();
        }
    }

    /// <summary>
    /// Ports are unbounded, as CCR's are: items posted with no receiver wait for one, in memory. So
    /// that a forgotten receiver is noticed, a backlog that reaches
    /// <see cref="CcrTelemetry.PortBacklogWarningThreshold"/> items, and again at each doubling, is
    /// reported: the <c>salsa.ccr.port.backlog.warnings</c> counter and a <c>PortBacklog</c> event
    /// of the <c>Salsa.Ccr</c> event source (item type and count; dotnet-trace, an EventListener).
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void CheckBacklog()
    {
        var threshold = CcrTelemetry.PortBacklogWarningThreshold;
        var warned = Volatile.Read(ref _backlogWarnedAt);
        var count = _items.Count;
        if (threshold <= 0 || count < Math.Max(threshold, 2 * warned) || Interlocked.CompareExchange(ref _backlogWarnedAt, count, warned) != warned)
        {
            return;
        }

        CcrTelemetry.PortBacklogWarnings.Add(1);
        CcrEventSource.Log.PortBacklog(typeof(T).Name, count);
    }

    void IPort.PostUnknownType(object item) => Post((T)item);

    /// <summary>Takes a message without any receiver, as CCR's <c>Test</c>.</summary>
    public bool Test(out T item)
    {
        lock (ConsumerLock)
        {
            return _items.TryDequeue(out item!);
        }
    }

    /// <summary>
    /// Awaits the next message. Awaited on a dispatcher thread, the continuation resumes on that
    /// dispatcher's queue; no thread blocks meanwhile. Cancelled by the token, or when the dispatcher
    /// queue that was current at the call is closed.
    /// </summary>
    public ValueTask<T> ReceiveAsync(CancellationToken cancellationToken = default)
    {
        if (_receivers.Length == 0)
        {
            lock (ConsumerLock)
            {
                if (_receivers.Length == 0 && _items.TryDequeue(out var ready))
                {
                    return new ValueTask<T>(ready);
                }
            }
        }

        var receiver = new AsyncReceiver<T>(this, cancellationToken);
        return receiver.Start();
    }

    internal void Register(PortReceiver<T> receiver)
    {
        lock (ConsumerLock)
        {
            _receivers = [.. _receivers, receiver];
        }

        RequestDrain();
    }

    internal void RequestDrain()
    {
        if (Interlocked.Increment(ref _drainRequests) != 1)
        {
            return;
        }

        var batch = new TaskBatch();
        List<IJoinEvaluator>? joins = null;
        int seen;
        do
        {
            seen = Volatile.Read(ref _drainRequests);
            lock (ConsumerLock)
            {
                DrainLocked(ref batch, ref joins);
            }

            batch.Flush();
            if (joins is { Count: > 0 })
            {
                foreach (var join in joins)
                {
                    join.Evaluate();
                }

                joins.Clear();
            }
        }
        while (Interlocked.Add(ref _drainRequests, -seen) != 0);
    }

    private void DrainLocked(ref TaskBatch batch, ref List<IJoinEvaluator>? joins)
    {
        var receivers = _receivers;
        if (Array.Exists(receivers, r => !r.IsLive))
        {
            receivers = _receivers = Array.FindAll(receivers, r => r.IsLive);
        }

        while (!_items.IsEmpty)
        {
            var consumed = false;
            foreach (var receiver in receivers)
            {
                var outcome = receiver.Offer(this, ref batch);
                if (outcome == OfferOutcome.Consumed)
                {
                    consumed = true;
                    break;
                }

                if (outcome == OfferOutcome.EvaluateJoin)
                {
                    joins ??= [];
                    var join = receiver.Join!;
                    if (!joins.Contains(join))
                    {
                        joins.Add(join);
                    }
                }
            }

            if (!consumed)
            {
                break;
            }
        }

        if (Array.Exists(receivers, r => !r.IsLive))
        {
            _receivers = Array.FindAll(receivers, r => r.IsLive);
        }
    }
}
