namespace Salsa.Ccr;

/// <summary>
/// An async handler started on a dispatcher queue. Its outcome goes to a task the caller owns;
/// when the dispatcher is disposed before it finishes, that task is cancelled rather than left
/// pending forever (its remaining continuations can no longer run there).
/// </summary>
internal sealed class SpawnedHandler<T>(DispatcherQueue queue, Func<Task<T>> handler) : ITask, ICancellable
{
    private readonly TaskCompletionSource<T> _outcome = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public Task<T> Start()
    {
        if (!queue.TrackPending(this) || !queue.TryEnqueue(this))
        {
            queue.UntrackPending(this);
            _outcome.TrySetException(new InvalidOperationException($"The dispatcher queue '{queue.Name}' refused the handler (closed or full)."));
        }

        return _outcome.Task;
    }

    public void Execute()
    {
        Task<T> running;
        try
        {
            running = handler();
        }
#pragma warning disable CA1031 // The handler's failure is its owner's: it goes to the returned task.
        catch (Exception exception)
#pragma warning restore CA1031
        {
            Finish(Task.FromException<T>(exception));
            return;
        }

        if (running.IsCompleted)
        {
            Finish(running);
        }
        else
        {
            running.ContinueWith(static (t, s) => ((SpawnedHandler<T>)s!).Finish(t), this, CancellationToken.None,
                TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        }
    }

    public void Cancel() => _outcome.TrySetCanceled();

    private void Finish(Task<T> completed)
    {
        queue.UntrackPending(this);
        if (completed.IsCanceled)
        {
            _outcome.TrySetCanceled();
        }
        else if (completed.IsFaulted)
        {
            _outcome.TrySetException(completed.Exception!.InnerExceptions);
        }
        else
        {
            _outcome.TrySetResult(completed.Result);
        }
    }
}
