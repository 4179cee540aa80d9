using System.Runtime.ExceptionServices;
using System.Threading.Tasks.Sources;
using Salsa.Ccr.Internal;

namespace Salsa.Ccr;

/// <summary>
/// A wait that also produces its result once satisfied (a receive dequeues, an exchange reads
/// cells). <see cref="IWaitCondition.IsSatisfied"/> says whether it would complete, without doing it.
/// </summary>
internal interface IWaitOperation<TResult> : IWaitCondition
{
    bool TryComplete(out TResult result);
}

/// <summary>Adapts a plain condition to an operation without a result.</summary>
internal readonly struct ConditionOperation<TCondition>(TCondition condition) : IWaitOperation<bool>
    where TCondition : struct, IWaitCondition
{
    public bool IsSatisfied() => condition.IsSatisfied();

    public WaitInfo Info => condition.Info;

    public bool TryComplete(out bool result) => result = condition.IsSatisfied();
}

// Design: the awaitable behind a suspended rank under task execution, one cached instance per rank
// and operation type, reused for every suspension (no allocation, no async state machine). Only its
// rank starts it and awaits it; a waker (any thread) only flips the rank's state and queues this
// object as a task on the rank's dispatcher queue — in the waker's local slot when the waker runs on
// that dispatcher, so the woken rank runs next on the same thread. When the task runs, it re-checks
// the operation on the dispatcher: done → it completes and runs the rank's continuation inline
// (already on the rank's queue); not yet → it suspends again. `_continuation` is null (pending), the
// continuation, or s_completed; the one atomic swap to s_completed is the completion, so a late
// OnCompleted and a completion cannot both miss each other.
internal sealed class RankOperation<TOperation, TResult> : IValueTaskSource<TResult>, IValueTaskSource, IResumable, ISuspendedOperation
    where TOperation : struct, IWaitOperation<TResult>
{
    private static readonly Action<object?> s_completed = static _ => throw new InvalidOperationException("A completed operation was resumed.");

    private readonly RankWaiter _waiter;
    private readonly SpmdGroup _group;
    private TOperation _operation;
    private TResult _result = default!;
    private Exception? _error;
    private Action<object?>? _continuation;
    private object? _continuationState;
    private ExecutionContext? _executionContext;
    private SynchronizationContext? _foreignContext;
    private DispatcherQueue? _queue;
    private short _version;
    private bool _pending;

    public RankOperation(RankWaiter waiter, SpmdGroup group)
    {
        _waiter = waiter;
        _group = group;
    }

    public DispatcherQueue Queue => _queue!;

    bool ISuspendedOperation.IsReady => _operation.IsSatisfied();

    WaitInfo ISuspendedOperation.Info => _operation.Info;

    /// <summary>Starts the operation: completes synchronously when it can, otherwise suspends the rank.</summary>
    public short Start(TOperation operation, out bool completedSynchronously, out TResult result)
    {
        if (_pending)
        {
            ThrowHelper.InvalidOperation("A rank awaits one communicator operation at a time: await each before starting the next.");
        }

        _group.ThrowIfAborted();
        if (operation.TryComplete(out result))
        {
            completedSynchronously = true;
            return 0;
        }

        _operation = operation;
        _error = null;
        _continuationState = null;
        _executionContext = null;
        _foreignContext = null;
        _queue = DispatcherQueue.Current ?? ThrowHelper.Argument<DispatcherQueue>(nameof(operation), "Task-execution ranks must run on their dispatcher.");
        _pending = true;
        Volatile.Write(ref _continuation, null);
        var version = ++_version;
        if (_waiter.Suspend(this, operation) == SuspendOutcome.Ready && operation.TryComplete(out result))
        {
            // Ready while suspending and no waker claimed it: nobody else touches this instance.
            _pending = false;
            completedSynchronously = true;
            return 0;
        }

        result = default!;
        completedSynchronously = false;
        return version;
    }

    /// <summary>Runs on the rank's dispatcher queue after a wake.</summary>
    void ITask.Execute()
    {
        if (_operation.TryComplete(out var result))
        {
            _result = result;
            Finish();
            return;
        }

        if (_group.AbortReason is { } reason)
        {
            _error = SpmdGroup.AbortedException(reason);
            Finish();
            return;
        }

        if (_waiter.Suspend(this, _operation) == SuspendOutcome.Ready && _operation.TryComplete(out result))
        {
            _result = result;
            Finish();
        }
    }

    private void Finish()
    {
        _pending = false;
        var continuation = Interlocked.Exchange(ref _continuation, s_completed);
        if (continuation is not null && continuation != s_completed)
        {
            Invoke(continuation, _continuationState);
        }
    }

    internal void Invoke(Action<object?> continuation, object? state)
    {
        if (_foreignContext is { } context)
        {
            context.Post(static s => { var (c, st) = ((Action<object?>, object?))s!; c(st); }, (continuation, state));
        }
        else
        {
            // The rank's flow runs from here to its next suspension: its sends need no lock.
            var outer = RankFlow.Enter(_waiter);
            try
            {
                if (_executionContext is { } executionContext)
                {
                    ExecutionContext.Run(executionContext, static s => { var (c, st) = ((Action<object?>, object?))s!; c(st); }, (continuation, state));
                }
                else
                {
                    continuation(state);
                }
            }
            finally
            {
                RankFlow.Exit(outer);
            }
        }
    }

    public ValueTaskSourceStatus GetStatus(short token) =>
        Volatile.Read(ref _continuation) != s_completed ? ValueTaskSourceStatus.Pending
        : _error is null ? ValueTaskSourceStatus.Succeeded
        : _error is OperationCanceledException ? ValueTaskSourceStatus.Canceled
        : ValueTaskSourceStatus.Faulted;

    public TResult GetResult(short token)
    {
        if (token != _version || Volatile.Read(ref _continuation) != s_completed)
        {
            ThrowHelper.InvalidOperation("A rank's operation was awaited out of turn.");
        }

        if (_error is { } error)
        {
            ExceptionDispatchInfo.Throw(error);
        }

        var result = _result;
        _result = default!;
        return result;
    }

    void IValueTaskSource.GetResult(short token) => GetResult(token);

    public void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags)
    {
        _continuationState = state;
        if ((flags & ValueTaskSourceOnCompletedFlags.FlowExecutionContext) != 0)
        {
            _executionContext = ExecutionContext.Capture();
        }

        // Continuations resume on the rank's own queue; only a different context needs a post.
        if ((flags & ValueTaskSourceOnCompletedFlags.UseSchedulingContext) != 0 &&
            SynchronizationContext.Current is { } context &&
            !(context is DispatcherSynchronizationContext dispatcherContext && dispatcherContext.Queue == _queue))
        {
            _foreignContext = context;
        }

        if (Interlocked.CompareExchange(ref _continuation, continuation, null) is not null)
        {
            // Completed before the continuation was registered: queue it rather than nest it.
            _queue!.EnqueueResume(new LateContinuation(this, continuation, state));
        }
    }

    private sealed class LateContinuation(RankOperation<TOperation, TResult> owner, Action<object?> continuation, object? state) : IResumable
    {
        public DispatcherQueue Queue => owner.Queue;

        public void Execute() => owner.Invoke(continuation, state);
    }
}
