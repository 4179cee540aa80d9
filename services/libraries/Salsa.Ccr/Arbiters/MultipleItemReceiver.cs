namespace Salsa.Ccr;

/// <summary>
/// Fires with a fixed number of messages from one port (CCR's MultipleItemReceive). Unlike CCR,
/// a count of one is allowed. The items are taken together, only when all are there, so a losing
/// Choice branch never holds messages it did not use.
/// </summary>
public sealed class MultipleItemReceiver<T> : ArbiterTask
{
    private readonly Port<T> _port;
    private readonly int _count;
    private readonly Delegate _handler;

    internal MultipleItemReceiver(bool persist, Port<T> port, int count, Delegate handler)
        : base(persist)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(count, 1);
        _port = port ?? throw new ArgumentNullException(nameof(port));
        _handler = handler ?? throw new ArgumentNullException(nameof(handler));
        _count = count;
    }

    private protected override void OnActivate() => _port.Register(new Leg(this));

    private sealed class Leg(MultipleItemReceiver<T> owner) : PortReceiver<T>
    {
        public override bool IsLive => owner.IsActive;

        public override OfferOutcome Offer(Port<T> port, ref TaskBatch batch)
        {
            if (port.Items.Count < owner._count || !owner.TryCommit())
            {
                return OfferOutcome.Declined;
            }

            var items = new T[owner._count];
            for (var i = 0; i < items.Length; i++)
            {
                // Only consumers under the lock take items, and the count was checked under it.
                port.Items.TryDequeue(out items[i]!);
            }

            batch.Add(owner.Queue!, owner.Wrap(new HandlerTask<T[]>(owner, owner._handler, items)));
            return OfferOutcome.Consumed;
        }
    }
}
