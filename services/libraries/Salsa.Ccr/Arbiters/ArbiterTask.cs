using Salsa.Ccr.Internal;

namespace Salsa.Ccr;

// Design: an arbiter's life is Created → Active → Finished, moved by CAS so exactly one thread
// wins each step. Activation binds it to a DispatcherQueue, which tracks top-level arbiters so that
// closing the queue (dispatcher disposal) cancels them. Children of a Choice or Interleave are not
// tracked themselves; their parent is, and decides their commits. Deactivation only flips state:
// ports drop dead receivers at their next drain, so deactivating never needs another port's lock.
/// <summary>
/// Base of everything <see cref="DispatcherQueue.Activate"/> accepts: receivers, joins, choices and
/// interleaves. Build them with <see cref="Arbiter"/>.
/// </summary>
public abstract class ArbiterTask : ICancellable
{
    private const int Created = 0;
    private const int Active = 1;
    private const int Finished = 2;

    private int _state;

    private protected ArbiterTask(bool persist)
    {
        Persist = persist;
    }

    /// <summary>Persistent arbiters keep firing; one-shot arbiters fire once.</summary>
    public bool Persist { get; }

    public bool IsActive => Volatile.Read(ref _state) == Active;

    /// <summary>Where this arbiter's handler exceptions go first.</summary>
    public Port<Exception>? ErrorPort { get; private set; }

    internal DispatcherQueue? Queue { get; private set; }

    internal IArbiterParent? Parent { get; private set; }

    /// <summary>Sends this arbiter's handler exceptions to <paramref name="port"/>.</summary>
    public ArbiterTask WithErrorPort(Port<Exception> port)
    {
        ErrorPort = port;
        return this;
    }

    /// <summary>
    /// Binds to <paramref name="queue"/> and registers on the ports. False when the queue is closed
    /// (its dispatcher was disposed): the arbiter is then cancelled — never left pending for ever.
    /// </summary>
    internal bool TryActivate(DispatcherQueue queue)
    {
        Bind(queue);
        if (!queue.TrackPending(this))
        {
            Deactivate(cancelled: true);
            return false;
        }

        OnActivate();
        return true;
    }

    /// <summary>Activates without a queue: for receivers that fire no task (awaited receives off any dispatcher).</summary>
    internal void ActivateDetached()
    {
        Bind(null);
        OnActivate();
    }

    internal void ActivateAsChild(DispatcherQueue queue, IArbiterParent parent)
    {
        Parent = parent;
        Bind(queue);
        OnActivate();
    }

    private void Bind(DispatcherQueue? queue)
    {
        if (Interlocked.CompareExchange(ref _state, Active, Created) != Created)
        {
            ThrowHelper.InvalidOperation("An arbiter can be activated only once.");
        }

        Queue = queue;
    }

    /// <summary>Registers on ports. Called once, when activated.</summary>
    private protected abstract void OnActivate();

    /// <summary>Called once when the arbiter stops, by commit, cancellation or its parent.</summary>
    private protected virtual void OnFinished(bool cancelled)
    {
    }

    /// <summary>
    /// Asks to consume: true means the caller must now take its items and fire. A persistent arbiter
    /// says yes while active; a one-shot arbiter says yes once, also as a child of a Choice or an
    /// Interleave. Under a parent, the parent decides too (a Choice says yes to one branch, an
    /// Interleave to none once its teardown is accepted). A one-shot child finishes first and asks
    /// after: a parent's no then means the parent itself is done with it, so nothing is lost.
    /// </summary>
    internal bool TryCommit()
    {
        if (Persist)
        {
            return IsActive && (Parent is not { } parent || parent.TryCommitChild(this));
        }

        if (Interlocked.CompareExchange(ref _state, Finished, Active) != Active)
        {
            return false;
        }

        if (Parent is null)
        {
            Queue?.UntrackPending(this);
        }

        OnFinished(cancelled: false);
        return Parent is not { } owner || owner.TryCommitChild(this);
    }

    /// <summary>Stops the arbiter; its receivers leave their ports at the next drain.</summary>
    internal bool Deactivate(bool cancelled = false)
    {
        if (Interlocked.Exchange(ref _state, Finished) != Active)
        {
            return false;
        }

        if (Parent is null)
        {
            Queue?.UntrackPending(this);
        }

        OnFinished(cancelled);
        return true;
    }

    /// <summary>Cancels a pending arbiter: nothing more is consumed; awaiting receives see cancellation.</summary>
    public void Cancel() => Deactivate(cancelled: true);

    /// <summary>Lets a parent gate the handler (Interleave); otherwise the task runs as is.</summary>
    internal ITask Wrap(ITask task) => Parent is { } parent ? parent.WrapChildTask(this, task) : task;

    internal bool TryRouteFault(Exception exception)
    {
        if (ErrorPort is { } port)
        {
            port.Post(exception);
            return true;
        }

        return Parent is { } parent && parent.TryRouteChildFault(exception);
    }
}

/// <summary>A composite arbiter deciding its children's commits.</summary>
internal interface IArbiterParent
{
    bool TryCommitChild(ArbiterTask child);

    ITask WrapChildTask(ArbiterTask child, ITask task);

    bool TryRouteChildFault(Exception exception);
}
