namespace Salsa.Ccr;

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
