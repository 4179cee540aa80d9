using System.Threading.Tasks.Sources;

namespace Salsa.Ccr;

/// <summary>
/// The receiver behind <see cref="Port{T}.ReceiveAsync"/>: a one-shot arbiter completing a
/// ValueTask. Continuations run asynchronously — on the dispatcher queue when awaited on one —
/// never inline on the poster's thread (which may hold a port lock).
/// </summary>
internal sealed class AsyncReceiver<T> : ArbiterTask, IValueTaskSource<T>
{
    private readonly Port<T> _port;
    private readonly CancellationToken _cancellationToken;
    private readonly Lock _gate = new();
    private ManualResetValueTaskSourceCore<T> _core = new() { RunContinuationsAsynchronously = true };
    private CancellationTokenRegistration _registration;
    private bool _done;

    public AsyncReceiver(Port<T> port, CancellationToken cancellationToken)
        : base(persist: false)
    {
        _port = port;
        _cancellationToken = cancellationToken;
    }

    public ValueTask<T> Start()
    {
        if (_cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled<T>(_cancellationToken);
        }

        var result = new ValueTask<T>(this, _core.Version);
        if (DispatcherQueue.Current is { } queue)
        {
            // Tracked by the queue: disposing the dispatcher cancels this receive (at once when
            // it already was: code still running on a disposed dispatcher's thread).
            TryActivate(queue);
        }
        else
        {
            ActivateDetached();
        }

        if (_cancellationToken.CanBeCanceled)
        {
            // Activation may already have completed the receive (an item was waiting): then the
            // registration is not kept — a long-lived token would hold every such receiver.
            var registration = _cancellationToken.UnsafeRegister(static s => ((AsyncReceiver<T>)s!).Cancel(), this);
            lock (_gate)
            {
                if (!_done)
                {
                    _registration = registration;
                    return result;
                }
            }

            registration.Dispose();
        }

        return result;
    }

    /// <summary>The receive is over: its token registration, if any, is released (and none is kept after).</summary>
    private void Done()
    {
        CancellationTokenRegistration registration;
        lock (_gate)
        {
            _done = true;
            (registration, _registration) = (_registration, default);
        }

        registration.Dispose();
    }

    private protected override void OnActivate() => _port.Register(new Leg(this));

    private protected override void OnFinished(bool cancelled)
    {
        if (cancelled)
        {
            Done();
            _core.SetException(new OperationCanceledException(_cancellationToken.IsCancellationRequested
                ? "The receive was cancelled."
                : "The receive was cancelled: its dispatcher was disposed.", _cancellationToken));
        }
    }

    public T GetResult(short token) => _core.GetResult(token);

    public ValueTaskSourceStatus GetStatus(short token) => _core.GetStatus(token);

    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);

    private sealed class Leg(AsyncReceiver<T> owner) : PortReceiver<T>
    {
        public override bool IsLive => owner.IsActive;

        public override OfferOutcome Offer(Port<T> port, ref TaskBatch batch)
        {
            if (!owner.TryCommit() || !port.Items.TryDequeue(out var item))
            {
                return OfferOutcome.Declined;
            }

            owner.Done();
            owner._core.SetResult(item);
            return OfferOutcome.Consumed;
        }
    }
}
