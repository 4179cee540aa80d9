namespace Salsa.Ccr;

/// <summary>A handler invocation that may finish later (async handlers); Interleave needs to know when.</summary>
internal interface ITrackedTask : ITask
{
    /// <summary>Runs the handler; null when it finished synchronously, else the task it is still running.</summary>
    Task? ExecuteTracked();
}

/// <summary>A handler with the message(s) that fired it.</summary>
internal sealed class HandlerTask<TMessage>(ArbiterTask owner, Delegate handler, TMessage message) : ITrackedTask, IFaultRoutingTask
{
    public void Execute()
    {
        var running = ExecuteTracked();
        if (running is not null)
        {
            ObserveAsync(running);
        }
    }

    public Task? ExecuteTracked()
    {
        switch (handler)
        {
            case Action<TMessage> action:
                action(message);
                return null;
            case Func<TMessage, Task> asyncHandler:
                var running = asyncHandler(message);
                if (running.IsCompletedSuccessfully)
                {
                    return null;
                }

                if (running.IsFaulted)
                {
                    // Surface synchronously so the queue routes it like a sync handler's failure.
                    running.GetAwaiter().GetResult();
                }

                return running;
            default:
                throw new InvalidOperationException($"Unsupported handler type {handler.GetType()}.");
        }
    }

    public bool TryRouteFault(Exception exception) => owner.TryRouteFault(exception);

    internal void ObserveAsync(Task running) =>
        running.ContinueWith(static (t, s) =>
        {
            var self = (HandlerTask<TMessage>)s!;
            if (t.IsFaulted)
            {
                var exception = t.Exception!.InnerExceptions.Count == 1 ? t.Exception.InnerException! : t.Exception;
                if (!self.TryRouteFault(exception))
                {
                    self.RouteToQueue(exception);
                }
            }
        }, this, CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);

    private void RouteToQueue(Exception exception)
    {
        if (owner.Queue is { } queue)
        {
            queue.RouteFault(null, exception);
        }
    }
}

/// <summary>A plain action spawned on a queue (CCR's FromHandler).</summary>
internal sealed class SpawnTask(Action handler) : ITrackedTask
{
    public void Execute() => handler();

    public Task? ExecuteTracked()
    {
        handler();
        return null;
    }
}
