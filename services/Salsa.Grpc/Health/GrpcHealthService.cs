using System.Diagnostics;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using Salsa.Grpc.Health.V1;
using ServingStatus = Salsa.Grpc.Health.V1.HealthCheckResponse.Types.ServingStatus;

namespace Salsa.Grpc;

/// <summary>
/// grpc.health.v1.Health. A service's status is, in order: what <see cref="GrpcHealthStatusStore"/>
/// says for it; for "" (the whole server) and for every mapped service, the result of ASP.NET
/// Core's health checks (Unhealthy is NOT_SERVING, Healthy and Degraded are SERVING); otherwise
/// the service is unknown (Check: NOT_FOUND; Watch: SERVICE_UNKNOWN).
/// </summary>
internal sealed class GrpcHealthService(
    HealthCheckService healthChecks,
    GrpcHealthStatusStore store,
    GrpcServiceRegistry registry,
    IOptions<GrpcServerOptions> options,
    IHostApplicationLifetime lifetime)
{
    // Design: the last run of the health checks is an immutable (task, time) pair swapped by
    // interlocked compare-exchange: callers inside the cache period share it; the first caller
    // after it starts the next run and the others that race it adopt the winner's. A faulted or
    // cancelled run is never reused.
    private readonly GrpcHealthOptions _options = options.Value.Health;
    private CachedReport? _last;

    public async Task<HealthCheckResponse> Check(HealthCheckRequest request, ServerCallContext context)
    {
        var status = await ResolveAsync(request.Service, context.CancellationToken).ConfigureAwait(false)
            ?? throw new RpcException(new Status(StatusCode.NotFound, $"Service '{request.Service}' is unknown."));
        return GrpcHealthStatusStore.Response(status);
    }

    public async Task Watch(HealthCheckRequest request, IServerStreamWriter<HealthCheckResponse> responses, ServerCallContext context)
    {
        // A stopping host ends the stream with OK, which the protocol tells clients to retry.
        using var stopping = CancellationTokenSource.CreateLinkedTokenSource(context.CancellationToken, lifetime.ApplicationStopping);
        var token = stopping.Token;
        ServingStatus? last = null;
        while (!lifetime.ApplicationStopping.IsCancellationRequested)
        {
            var changed = store.NextChange;
            var status = await ResolveAsync(request.Service, context.CancellationToken).ConfigureAwait(false) ?? ServingStatus.ServiceUnknown;
            if (status != last)
            {
                await responses.WriteAsync(GrpcHealthStatusStore.Response(status), context.CancellationToken).ConfigureAwait(false);
                last = status;
            }

            // Explicit changes wake the stream at once; health-check results are polled.
            var poll = Task.Delay(_options.WatchPollInterval, token);
            await Task.WhenAny(changed, poll).ConfigureAwait(false);
            context.CancellationToken.ThrowIfCancellationRequested();
        }
    }

    private async Task<ServingStatus?> ResolveAsync(string service, CancellationToken cancellationToken)
    {
        if (store.TryGetStatus(service, out var explicitStatus))
        {
            return explicitStatus;
        }

        if (service.Length != 0 && !registry.IsMapped(service))
        {
            return null;
        }

        var report = await ReportAsync(cancellationToken).ConfigureAwait(false);
        return report.Status == HealthStatus.Unhealthy ? ServingStatus.NotServing : ServingStatus.Serving;
    }

    private Task<HealthReport> ReportAsync(CancellationToken cancellationToken)
    {
        if (_options.ResultCacheDuration <= TimeSpan.Zero)
        {
            return healthChecks.CheckHealthAsync(_options.Predicate, cancellationToken);
        }

        var last = Volatile.Read(ref _last);
        if (last is not null && !last.Report.Task.IsFaulted && !last.Report.Task.IsCanceled &&
            Stopwatch.GetElapsedTime(last.Started) < _options.ResultCacheDuration)
        {
            return last.Report.Task.WaitAsync(cancellationToken);
        }

        var mine = new CachedReport(new TaskCompletionSource<HealthReport>(TaskCreationOptions.RunContinuationsAsynchronously), Stopwatch.GetTimestamp());
        if (Interlocked.CompareExchange(ref _last, mine, last) is var seen && seen != last)
        {
            return seen!.Report.Task.WaitAsync(cancellationToken); // another caller started this period's run
        }

        _ = RunChecksAsync(mine.Report);
        return mine.Report.Task.WaitAsync(cancellationToken);
    }

    // The shared run must not die with the caller that happened to start it.
    private async Task RunChecksAsync(TaskCompletionSource<HealthReport> report)
    {
        try
        {
            report.SetResult(await healthChecks.CheckHealthAsync(_options.Predicate, lifetime.ApplicationStopping).ConfigureAwait(false));
        }
#pragma warning disable CA1031 // The failure is handed to every caller waiting on this run.
        catch (Exception exception)
#pragma warning restore CA1031
        {
            report.SetException(exception);
        }
    }

    private sealed record CachedReport(TaskCompletionSource<HealthReport> Report, long Started);
}
