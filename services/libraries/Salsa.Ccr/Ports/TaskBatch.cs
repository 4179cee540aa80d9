namespace Salsa.Ccr;

/// <summary>
/// Tasks fired during a drain, queued once the port lock is released. The first task is held
/// inline: one message firing one handler is the common case and allocates no list.
/// </summary>
internal struct TaskBatch
{
    private (DispatcherQueue Queue, ITask Task) _first;
    private List<(DispatcherQueue Queue, ITask Task)>? _rest;

    public void Add(DispatcherQueue queue, ITask task)
    {
        if (_first.Task is null)
        {
            _first = (queue, task);
        }
        else
        {
            (_rest ??= []).Add((queue, task));
        }
    }

    public void Flush()
    {
        if (_first.Task is null)
        {
            return;
        }

        Dispatch(_first);
        _first = default;
        if (_rest is { Count: > 0 })
        {
            foreach (var item in _rest)
            {
                Dispatch(item);
            }

            _rest.Clear();
        }
    }

    private static void Dispatch((DispatcherQueue Queue, ITask Task) item)
    {
        // Enqueue waits for room under the throttle policy; refused tasks (discard policy, or a
        // queue closed meanwhile) are cancelled so their owners learn of it.
        if (!item.Queue.Enqueue(item.Task))
        {
            (item.Task as ICancellable)?.Cancel();
        }
    }
}
