using Salsa.Grpc.Health.V1;
using ServingStatus = Salsa.Grpc.Health.V1.HealthCheckResponse.Types.ServingStatus;

namespace Salsa.Grpc;

/// <summary>
/// Serving statuses set explicitly per service name, overriding what the health checks say
/// (e.g. NOT_SERVING while draining). Resolve it from DI and call <see cref="SetStatus"/>.
/// </summary>
public sealed class GrpcHealthStatusStore
{
    // Design: any thread may set or clear (the host, a drain hook); Watch streams read. Writes go
    // under a lock that also swaps the change signal, so a watcher that took the signal before
    // reading a status is woken by any later change and cannot miss one. Watchers only await
    // the signal, never the lock's holder, so nothing can deadlock.
    private readonly Lock _gate = new();
    private readonly Dictionary<string, ServingStatus> _statuses = new(StringComparer.Ordinal);
    private TaskCompletionSource _changed = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public void SetStatus(string service, ServingStatus status)
    {
        ArgumentNullException.ThrowIfNull(service);
        lock (_gate)
        {
            _statuses[service] = status;
            SignalChange();
        }
    }

    public void ClearStatus(string service)
    {
        ArgumentNullException.ThrowIfNull(service);
        lock (_gate)
        {
            if (_statuses.Remove(service))
            {
                SignalChange();
            }
        }
    }

    public bool TryGetStatus(string service, out ServingStatus status)
    {
        lock (_gate)
        {
            return _statuses.TryGetValue(service, out status);
        }
    }

    /// <summary>Completes at the next change after it was taken.</summary>
    internal Task NextChange
    {
        get
        {
            lock (_gate)
            {
                return _changed.Task;
            }
        }
    }

    private void SignalChange()
    {
        var changed = _changed;
        _changed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        changed.SetResult();
    }

    internal static HealthCheckResponse Response(ServingStatus status) => new() { Status = status };
}
