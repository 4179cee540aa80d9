namespace Salsa.Gateway.Runs;

// Design: a run's steps change its view many times (started, succeeded, hops, artifacts); each change
// must reach the store, but the steps need not wait for it. `Changed` marks the run dirty and, when no
// write is pending, starts one `writeBehind` later; a write stores the newest view when it begins, and
// if the run changed while it waited or wrote, one more write follows, again `writeBehind` later. So
// writes never overlap (the last one stored is the newest), a burst of changes costs one write, a run
// that ends within `writeBehind` of its start is written twice in all (its insert and its end), and
// no store write runs beside a short run's calls, competing for the cores its caller is waiting on.
// `FlushAsync` cuts the wait short and waits until the newest view is stored, reporting a failure to
// store it: a service job's id before the step waits on the job (so a resumed run takes the job up
// again instead of starting another) and the run's end (after its waiters have heard it, before the
// gateway stops). Every write stores the whole view, so the store never holds a step without the
// steps it built on. A gateway that dies between a change and its write loses only the steps since
// the last write, which a resumed run does again.
/// <summary>Writes a live run's view to the store in the background, coalescing changes.</summary>
#pragma warning disable CA1001 // Its token sources hold no timer (none has CancelAfter) and are released when their delay ends; disposing one would race a flush's Cancel.
internal sealed class RunPersister(LiveRun run, Func<LiveRun, CancellationToken, Task> write, TimeSpan writeBehind, ILogger logger)
{
    private readonly Lock _gate = new();
    private Task _writing = Task.CompletedTask;
    private bool _dirty;
    private bool _active;
    private int _flushes;
    private CancellationTokenSource? _waiting;
    private Exception? _lastFailure;

    /// <summary>The run's view changed: have it stored soon, without waiting.</summary>
    public void Changed()
    {
        lock (_gate)
        {
            MarkDirty();
        }
    }

    /// <summary>Stores the newest view now (whatever is in flight first); throws if it cannot be stored.</summary>
    public async Task FlushAsync()
    {
        Task writing;
        CancellationTokenSource? waiting;
        lock (_gate)
        {
            _flushes++; // the loop no longer waits while a flush is waiting for it
            MarkDirty();
            writing = _writing;
            waiting = _waiting;
        }

        waiting?.Cancel(); // outside the lock: the loop may go on on this thread
        try
        {
            await writing.ConfigureAwait(false);
        }
        finally
        {
            lock (_gate)
            {
                _flushes--;
            }
        }

        Exception? failed;
        lock (_gate)
        {
            failed = _lastFailure;
        }

        if (failed is not null)
        {
            throw new InvalidOperationException($"Run {run.Id} could not be stored: {failed.Message}", failed);
        }
    }

    /// <summary>Under the lock: the view changed; a write loop is started unless one is pending.</summary>
    private void MarkDirty()
    {
        _dirty = true;
        if (!_active)
        {
            _active = true;
            _writing = WriteLoopAsync();
        }
    }

    private async Task WriteLoopAsync()
    {
        await Task.Yield();
        while (true)
        {
            CancellationTokenSource? waiting = null;
            lock (_gate)
            {
                if (_flushes == 0 && writeBehind > TimeSpan.Zero)
                {
                    waiting = _waiting = new CancellationTokenSource();
                }
            }

            if (waiting is not null)
            {
                await Task.Delay(writeBehind, waiting.Token).ConfigureAwait(ConfigureAwaitOptions.SuppressThrowing);
                if (waiting.IsCancellationRequested)
                {
                    // Cut short by a flush, this runs inside its Cancel: write from the pool instead, so the
                    // flushing thread goes on at once (the run's end flushes just after waking its waiters,
                    // queued on that thread, which runs them first instead of this write).
                    await Task.Yield();
                }
            }

            lock (_gate)
            {
                _waiting = null;
                if (!_dirty)
                {
                    _active = false;
                    return;
                }

                _dirty = false;
            }

            try
            {
                await write(run, CancellationToken.None).ConfigureAwait(false);
                lock (_gate)
                {
                    _lastFailure = null;
                }
            }
#pragma warning disable CA1031 // A store fault is the write's, logged and reported by the next flush; the run goes on.
            catch (Exception exception)
#pragma warning restore CA1031
            {
                lock (_gate)
                {
                    _lastFailure = exception;
                }

                RunLog.StoreWriteFailed(logger, run.Id, exception.Message);
            }

            lock (_gate)
            {
                if (!_dirty)
                {
                    _active = false;
                    return;
                }
            }
        }
    }
}
#pragma warning restore CA1001
