namespace Salsa.Ccr;

internal enum OfferOutcome
{
    Declined,
    Consumed,
    EvaluateJoin,
}

/// <summary>Evaluated after a drain releases its port lock (joins take several ports' locks).</summary>
internal interface IJoinEvaluator
{
    void Evaluate();
}

/// <summary>What a port holds in its receiver list.</summary>
internal abstract class PortReceiver<T>
{
    /// <summary>False once the owning arbiter finished; the port drops it.</summary>
    public abstract bool IsLive { get; }

    /// <summary>Set for join legs: the port asks the join to evaluate after the drain.</summary>
    public virtual IJoinEvaluator? Join => null;

    /// <summary>Called with the port's consumer lock held and at least one item queued.</summary>
    public abstract OfferOutcome Offer(Port<T> port, ref TaskBatch batch);
}
