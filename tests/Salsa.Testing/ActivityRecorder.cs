using System.Collections.Concurrent;
using System.Diagnostics;

namespace Salsa.Testing;

/// <summary>
/// Records the stopped activities of some sources, so a test can look at the spans a real server
/// made. The listener is process-wide: tests find theirs by trace id.
/// </summary>
public sealed class ActivityRecorder : IDisposable
{
    // Design: activities stop on client and server threads and are queued; the test waits on
    // a semaphore released once per activity and rescans the queue, so no stop is missed and
    // nothing blocks a server thread.
    private readonly ActivityListener _listener;
    private readonly ConcurrentQueue<Activity> _stopped = new();
    private readonly SemaphoreSlim _signal = new(0);

    public ActivityRecorder(params string[] sources)
    {
        _listener = new ActivityListener
        {
            ShouldListenTo = source => sources.Contains(source.Name),
            Sample = (ref _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = activity =>
            {
                _stopped.Enqueue(activity);
                _signal.Release();
            },
        };
        ActivitySource.AddActivityListener(_listener);
    }

    /// <summary>The first stopped activity that matches, waiting for it if need be.</summary>
    public async Task<Activity> WaitForAsync(Func<Activity, bool> match, CancellationToken cancellationToken)
    {
        while (true)
        {
            if (_stopped.FirstOrDefault(match) is { } found)
            {
                return found;
            }

            await _signal.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>Every activity stopped so far.</summary>
    public IReadOnlyCollection<Activity> Stopped => _stopped;

    /// <summary>The spans recorded so far (source, name, kind, trace, parent), for a failure's message.</summary>
    public string Describe(Func<Activity, bool>? filter = null) => string.Join(Environment.NewLine, _stopped.Where(filter ?? (_ => true))
        .Select(a => $"{a.Source.Name} '{a.OperationName}' ({a.DisplayName}) {a.Kind} trace {a.TraceId} span {a.SpanId} parent {a.ParentSpanId}"));

    public void Dispose()
    {
        _listener.Dispose();
        _signal.Dispose();
    }
}
