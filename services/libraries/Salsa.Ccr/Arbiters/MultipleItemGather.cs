namespace Salsa.Ccr;

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
