namespace Salsa.Ccr;

/// <summary>A handler exception no error port took.</summary>
public sealed class DispatcherExceptionEventArgs(DispatcherQueue queue, Exception exception) : EventArgs
{
    public DispatcherQueue Queue { get; } = queue;

    public Exception Exception { get; } = exception;
}
