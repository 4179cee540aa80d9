namespace Salsa.Ccr;

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
