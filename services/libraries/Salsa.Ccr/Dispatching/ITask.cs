namespace Salsa.Ccr;

/// <summary>
/// A unit of work a <see cref="DispatcherQueue"/> hands to a dispatcher thread: a handler with its
/// message, a continuation, or an arbiter to activate. Exceptions thrown by <see cref="Execute"/>
/// are routed by <see cref="DispatcherQueue"/> (see <see cref="DispatcherQueue.UnhandledExceptionPort"/>).
/// </summary>
public interface ITask
{
    void Execute();
}

/// <summary>A task that wants its own failures first (e.g. a receiver with an error port).</summary>
internal interface IFaultRoutingTask : ITask
{
    /// <summary>Returns true when the exception was delivered to its owner.</summary>
    bool TryRouteFault(Exception exception);
}

internal sealed class ActionTask(Action action) : ITask
{
    public void Execute() => action();
}

internal sealed class CallbackTask(DispatcherQueue queue, SendOrPostCallback callback, object? state) : IResumable
{
    public DispatcherQueue Queue { get; } = queue;

    public void Execute() => callback(state);
}
