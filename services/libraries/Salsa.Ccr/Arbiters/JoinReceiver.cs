namespace Salsa.Ccr;

// Design: a join needs one item from each of several ports, taken atomically. Each port holds a
// leg that only reports "evaluate me"; the evaluation runs after that port's drain released its
// lock, takes every port's consumer lock in ascending Port.Id order (the global order that keeps
// concurrent joins and drains deadlock-free), and commits only if every port has an item. Nothing
// is taken unless everything is, so a losing join never strands messages.
/// <summary>Base of joins over several ports.</summary>
public abstract class JoinReceiver : ArbiterTask, IJoinEvaluator
{
    private readonly (long Id, object Gate)[] _locks;

    private protected JoinReceiver(bool persist, IEnumerable<(long Id, object Gate)> locks)
        : base(persist)
    {
        _locks = [.. locks.DistinctBy(l => l.Id).OrderBy(l => l.Id)];
    }

    void IJoinEvaluator.Evaluate()
    {
        var batch = new TaskBatch();
        while (IsActive)
        {
            var fired = false;
            var taken = 0;
            try
            {
                for (; taken < _locks.Length; taken++)
                {
                    Monitor.Enter(_locks[taken].Gate);
                }

                if (AllPortsHaveItems() && TryCommit())
                {
                    batch.Add(Queue!, Wrap(TakeAndBuildTask()));
                    fired = true;
                }
            }
            finally
            {
                while (taken > 0)
                {
                    Monitor.Exit(_locks[--taken].Gate);
                }
            }

            batch.Flush();
            if (!fired || !Persist)
            {
                return;
            }
        }
    }

    /// <summary>Called with every port's lock held.</summary>
    private protected abstract bool AllPortsHaveItems();

    /// <summary>Called with every port's lock held, after a successful commit.</summary>
    private protected abstract ITask TakeAndBuildTask();

    private protected sealed class Leg<T>(JoinReceiver owner) : PortReceiver<T>
    {
        public override bool IsLive => owner.IsActive;

        public override IJoinEvaluator Join => owner;

        public override OfferOutcome Offer(Port<T> port, ref TaskBatch batch) =>
            owner.IsActive ? OfferOutcome.EvaluateJoin : OfferOutcome.Declined;
    }
}

/// <summary>One item from each of n ports of one type (CCR's MultiplePortReceive); the handler gets them in port order.</summary>
public sealed class MultiplePortReceiver<T> : JoinReceiver
{
    private readonly Port<T>[] _ports;
    private readonly Delegate _handler;

    internal MultiplePortReceiver(bool persist, Port<T>[] ports, Delegate handler)
        : base(persist, ports.Select(p => (p.Id, p.ConsumerLock)))
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(ports.Length, 1);
        if (ports.Distinct().Count() != ports.Length)
        {
            throw new ArgumentException("Each port may appear once; use MultipleItemReceive for several items from one port.", nameof(ports));
        }

        _ports = ports;
        _handler = handler ?? throw new ArgumentNullException(nameof(handler));
    }

    private protected override void OnActivate()
    {
        foreach (var port in _ports)
        {
            port.Register(new Leg<T>(this));
        }
    }

    private protected override bool AllPortsHaveItems() => Array.TrueForAll(_ports, p => !p.Items.IsEmpty);

    private protected override ITask TakeAndBuildTask()
    {
        var items = new T[_ports.Length];
        for (var i = 0; i < items.Length; i++)
        {
            _ports[i].Items.TryDequeue(out items[i]!);
        }

        return new HandlerTask<T[]>(this, _handler, items);
    }
}

/// <summary>
/// One item from each of two ports (CCR's JoinedReceive). The same port twice joins two of its items,
/// the older first — never one item for both, or a value nobody posted.
/// </summary>
public sealed class JoinedReceiver<T0, T1> : JoinReceiver
{
    private readonly Port<T0> _port0;
    private readonly Port<T1> _port1;
    private readonly Delegate _handler;
    private readonly bool _samePort;

    internal JoinedReceiver(bool persist, Port<T0> port0, Port<T1> port1, Delegate handler)
        : base(persist, [(port0.Id, port0.ConsumerLock), (port1.Id, port1.ConsumerLock)])
    {
        _port0 = port0;
        _port1 = port1;
        _handler = handler ?? throw new ArgumentNullException(nameof(handler));
        _samePort = ReferenceEquals(port0, port1);
    }

    private protected override void OnActivate()
    {
        _port0.Register(new Leg<T0>(this));
        if (!_samePort)
        {
            _port1.Register(new Leg<T1>(this));
        }
    }

    private protected override bool AllPortsHaveItems() => _samePort ? _port0.Items.Count >= 2 : !_port0.Items.IsEmpty && !_port1.Items.IsEmpty;

    private protected override ITask TakeAndBuildTask()
    {
        _port0.Items.TryDequeue(out var item0);
        _port1.Items.TryDequeue(out var item1);
        return new HandlerTask<(T0, T1)>(this, _handler, (item0!, item1!));
    }
}

/// <summary>
/// Scatter–gather over a success/failure port set (CCR's MultipleItemReceive over a PortSet): fires
/// once, when <c>count</c> items have arrived on the two ports together, with the successes and the
/// failures. Nothing is taken until all are there, so a losing Choice branch holds nothing. Should
/// more than <c>count</c> be waiting, successes are taken first, each port in arrival order.
/// </summary>
public sealed class MultipleItemGather<T0, T1> : JoinReceiver
{
    private readonly PortSet<T0, T1> _ports;
    private readonly int _count;
    private readonly Delegate _handler;

    internal MultipleItemGather(PortSet<T0, T1> ports, int count, Delegate handler)
        : base(persist: false, [(ports.P0.Id, ports.P0.ConsumerLock), (ports.P1.Id, ports.P1.ConsumerLock)])
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        _ports = ports;
        _count = count;
        _handler = handler;
    }

    private protected override void OnActivate()
    {
        _ports.P0.Register(new Leg<T0>(this));
        _ports.P1.Register(new Leg<T1>(this));
    }

    private protected override bool AllPortsHaveItems() => (long)_ports.P0.Items.Count + _ports.P1.Items.Count >= _count;

    private protected override ITask TakeAndBuildTask()
    {
        var successes = new List<T0>(_count);
        while (successes.Count < _count && _ports.P0.Items.TryDequeue(out var success))
        {
            successes.Add(success);
        }

        var failures = new T1[_count - successes.Count];
        for (var i = 0; i < failures.Length; i++)
        {
            _ports.P1.Items.TryDequeue(out failures[i]!);
        }

        return new HandlerTask<(T0[], T1[])>(this, _handler, ([.. successes], failures));
    }
}
