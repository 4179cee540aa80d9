namespace Salsa.Ccr;

/// <summary>Fires its handler with each message of one port (CCR's Receive); one-shot or persistent.</summary>
public sealed class Receiver<T> : ArbiterTask
{
    private readonly Port<T> _port;
    private readonly Delegate _handler;

    internal Receiver(bool persist, Port<T> port, Delegate handler)
        : base(persist)
    {
        _port = port ?? throw new ArgumentNullException(nameof(port));
        _handler = handler ?? throw new ArgumentNullException(nameof(handler));
    }

    private protected override void OnActivate() => _port.Register(new Leg(this));

    private sealed class Leg(Receiver<T> owner) : PortReceiver<T>
    {
        public override bool IsLive => owner.IsActive;

        public override OfferOutcome Offer(Port<T> port, ref TaskBatch batch)
        {
            if (!owner.TryCommit() || !port.Items.TryDequeue(out var item))
            {
                return OfferOutcome.Declined;
            }

            batch.Add(owner.Queue!, owner.Wrap(new HandlerTask<T>(owner, owner._handler, item)));
            return OfferOutcome.Consumed;
        }
    }
}
