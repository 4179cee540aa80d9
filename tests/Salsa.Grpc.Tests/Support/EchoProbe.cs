using System.Collections.Concurrent;

namespace Salsa.Grpc.Tests.Support;

/// <summary>
/// Lets tests wait for what the server observed, keyed by the request text: a method started
/// waiting, and its cancellation token fired (with whether the deadline had passed).
/// </summary>
public sealed class EchoProbe
{
    // Design: service methods complete sources on server threads while tests await them; keys are
    // unique per test, sources are created on first use by either side (concurrent dictionary) and
    // run continuations asynchronously, so a server thread never runs test code inline.
    private readonly ConcurrentDictionary<string, TaskCompletionSource> _started = new();
    private readonly ConcurrentDictionary<string, TaskCompletionSource<bool>> _cancelled = new();

    public TaskCompletionSource Started(string key) =>
        _started.GetOrAdd(key, _ => new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously));

    /// <summary>Completes when the call's token fired: true when the call had a deadline, false when it had none.</summary>
    public TaskCompletionSource<bool> Cancelled(string key) =>
        _cancelled.GetOrAdd(key, _ => new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously));
}
