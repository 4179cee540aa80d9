using System.Globalization;
using Microsoft.Extensions.Options;
using Salsa.Ccr;
using Salsa.Hosting;
using Salsa.Hosting.Errors;

namespace Salsa.Fingerprints;

// Design: searches are short and answered while the caller waits, so they cannot be jobs, and must
// not compute on request threads nor wait behind a job's ranks on the compute dispatcher. They get a
// Salsa.Ccr dispatcher of their own whose bounded queue is the backlog: a full queue refuses the
// search at once (429 / RESOURCE_EXHAUSTED with the retry hint). Each task completes its caller's
// TaskCompletionSource (continuations run asynchronously, never on a search thread); a caller that
// went away before its turn costs nothing. Nothing here waits on anything, so nothing can deadlock.
/// <summary>The threads that build search indexes and answer searches.</summary>
public sealed class SearchDispatcher : IDisposable
{
    private readonly Dispatcher _dispatcher;
    private readonly DispatcherQueue _queue;
    private readonly TimeSpan _retryAfter;

    public SearchDispatcher(IOptions<FingerprintsOptions> options, IOptions<ServiceLimits> limits)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(limits);
        _retryAfter = limits.Value.RetryAfter;
        _dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = Math.Max(options.Value.SearchThreads, 1), Name = "Salsa search", IdleSpin = TimeSpan.Zero });
        _queue = _dispatcher.CreateQueue("searches", new DispatcherQueueOptions { Policy = QueuePolicy.DiscardNewest, MaxDepth = Math.Max(options.Value.SearchQueueDepth, 1) });
    }

    /// <summary>Runs <paramref name="work"/> on a search thread; refused at once when the queue is full.</summary>
    public Task<T> RunAsync<T>(Func<T> work, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(work);
        var done = new TaskCompletionSource<T>(TaskCreationOptions.RunContinuationsAsynchronously);
        var queued = _queue.Post(() =>
        {
            if (cancellationToken.IsCancellationRequested)
            {
                done.TrySetCanceled(cancellationToken);
                return;
            }

            try
            {
                done.TrySetResult(work());
            }
#pragma warning disable CA1031 // The failure is the caller's answer, delivered through its task.
            catch (Exception exception)
#pragma warning restore CA1031
            {
                done.TrySetException(exception);
            }
        });
        if (!queued)
        {
            throw new QueueFullException(string.Create(CultureInfo.InvariantCulture,
                $"The search queue is full ({_queue.MaxDepth} waiting); retry after {_retryAfter.TotalSeconds:0.#} s."), _retryAfter);
        }

        return done.Task;
    }

    public void Dispose() => _dispatcher.Dispose();
}
