namespace Salsa.Gateway.Runs;

// Design: a run's steps change its view many times (started, succeeded, artifacts); each change must
// reach the store, but the steps need not wait for it. `Changed` marks the run dirty and, when no write
// is in flight, starts one; a write stores the newest view when it begins, and if the run changed while
// it was writing, writes once more. So writes never overlap (the last one stored is the newest), many
// changes during one write cost one more write, and a step's start does not wait on the store.
// `FlushAsync` waits until the newest view is stored and reports a failure to store it: a service
// job's id before the step waits on the job (so a resumed run takes the job up again instead of
// starting another) and the run's end (after its waiters have heard it, before the gateway stops).
// Every write stores the whole view, so the store never holds a step without the steps it built on.
// A gateway that dies between a change and its write loses only steps since the last write, which a
// resumed run does again.
/// <summary>Writes a live run's view to the store in the background, coalescing changes.</summary>
internal sealed class RunPersister(LiveRun run, Func<LiveRun, CancellationToken, Task> write, ILogger logger)
{
    private readonly Lock _gate = new();
    private Task _writing = Task.CompletedTask;
    private bool _dirty;
    private bool _active;
    private Exception? _lastFailure;

    /// <summary>The run's view changed: have it stored soon, without waiting.</summary>
    public void Changed()
    {
        lock (_gate)
        {
            _dirty = true;
            if (_active)
            {
                return;
            }

            _active = true;
            _writing = WriteLoopAsync();
        }
    }

    /// <summary>Stores the newest view (whatever is in flight first); throws if it cannot be stored.</summary>
    public async Task FlushAsync()
    {
        Changed();
        Task writing;
        lock (_gate)
        {
            writing = _writing;
        }

        await writing.ConfigureAwait(false);
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

    private async Task WriteLoopAsync()
    {
        await Task.Yield();
        while (true)
        {
            lock (_gate)
            {
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
        }
    }
}
