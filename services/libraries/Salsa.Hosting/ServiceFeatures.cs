using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Logging;
using Salsa.Hosting.Compute;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Store;

namespace Salsa.Hosting;

/// <summary>
/// What a service adds when it uses it, beyond the <see cref="ServiceDefaults"/>: the store (and
/// its readiness check), jobs on the compute dispatcher with the shared Jobs API, and datasets with
/// the shared Datasets API.
/// </summary>
/// <example>
/// <code>
/// builder.AddStore().AddDatasets().AddJobs();   // in AddServices
/// app.MapDatasets().MapJobs();                   // in MapEndpoints
/// </code>
/// </example>
public static class ServiceFeatures
{
    /// <summary>The store (SQLite, or PostgreSQL with a connection string) and <c>/health</c>'s check that it answers.</summary>
    public static WebApplicationBuilder AddStore(this WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        if (builder.Services.Any(d => d.ServiceType == typeof(StoreHealthCheck)))
        {
            return builder;
        }

        builder.Services.AddDataStore(builder.Configuration);
        builder.Services.AddSingleton<StoreHealthCheck>(); // one instance, so its probe is shared
        builder.Services.AddHealthChecks().AddCheck<StoreHealthCheck>("store", tags: ["ready"]);
        return builder;
    }

    /// <summary>Jobs: the compute runtime, the job manager and the Jobs gRPC service (the store too).</summary>
    public static WebApplicationBuilder AddJobs(this WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.AddStore();
        builder.Services.AddSingleton<ComputeRuntime>();
        builder.Services.AddSingleton<JobManager>();
        builder.Services.AddSingleton<JobResults>();
        builder.Services.AddHostedService(sp => sp.GetRequiredService<JobManager>());
        builder.Services.AddSingleton<JobsGrpcService>();
        builder.Logging.AddProvider(new JobLogProvider());
        return builder;
    }

    /// <summary>Datasets: the catalog and the Datasets gRPC service (the store too).</summary>
    public static WebApplicationBuilder AddDatasets(this WebApplicationBuilder builder)
    {
        ArgumentNullException.ThrowIfNull(builder);
        builder.AddStore();
        builder.Services.AddSingleton<DatasetCatalog>();
        builder.Services.AddSingleton<DatasetsGrpcService>();
        return builder;
    }

    /// <summary>The shared Jobs API: REST under <c>/api/jobs</c> and <c>salsa.common.v1.Jobs</c>.</summary>
    public static WebApplication MapJobs(this WebApplication app)
    {
        ArgumentNullException.ThrowIfNull(app);
        app.MapJobsApi();
        app.MapGrpcService<JobsGrpcService>();
        return app;
    }

    /// <summary>The shared Datasets API: REST under <c>/api/datasets</c> and <c>salsa.datasets.v1.Datasets</c>.</summary>
    public static WebApplication MapDatasets(this WebApplication app)
    {
        ArgumentNullException.ThrowIfNull(app);
        app.MapDatasetsApi();
        app.MapGrpcService<DatasetsGrpcService>();
        return app;
    }

    /// <summary>
    /// Whether the store answers. One probe serves every check that comes within a second of it
    /// (<c>/health</c>, grpc.health.v1, a load balancer polling hard), so health costs the store one
    /// query a second at most, not one per caller. A probe waits <see cref="Patience"/> at most: a
    /// read rides out an unreachable database for half a minute (the store's retries), but health
    /// says at once that it is unreachable now.
    /// </summary>
    private sealed class StoreHealthCheck(IDataStore store) : IHealthCheck
    {
        private static readonly TimeSpan Fresh = TimeSpan.FromSeconds(1);
        private static readonly TimeSpan Patience = TimeSpan.FromSeconds(5);
        private Probe? _last;

        public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
        {
            var last = Volatile.Read(ref _last);
            if (last is not null && (!last.Result.IsCompleted || TimeProvider.System.GetElapsedTime(last.Started) < Fresh))
            {
                return last.Result.WaitAsync(cancellationToken);
            }

            var probe = new Probe(ProbeAsync(), TimeProvider.System.GetTimestamp());
            Volatile.Write(ref _last, probe);
            return probe.Result.WaitAsync(cancellationToken);
        }

        private sealed record Probe(Task<HealthCheckResult> Result, long Started);

        // Shared by several callers, so not cancelled by any one of them; bounded by its own patience.
        private async Task<HealthCheckResult> ProbeAsync()
        {
            using var patience = new CancellationTokenSource(Patience);
            try
            {
                await store.ListDatasetsAsync(null, 1, patience.Token).ConfigureAwait(false);
                return HealthCheckResult.Healthy();
            }
            catch (OperationCanceledException) when (patience.IsCancellationRequested)
            {
                return HealthCheckResult.Unhealthy($"The store did not answer within {Patience.TotalSeconds:0} s.");
            }
#pragma warning disable CA1031 // Any store failure is "unhealthy", reported with its reason.
            catch (Exception exception)
#pragma warning restore CA1031
            {
                return HealthCheckResult.Unhealthy("The store is unreachable.", exception);
            }
        }
    }
}
