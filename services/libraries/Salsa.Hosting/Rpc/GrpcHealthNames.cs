using Grpc.AspNetCore.HealthChecks;
using Grpc.AspNetCore.Server;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace Salsa.Hosting.Rpc;

/// <summary>grpc.health.v1 by service name, beside the server's overall health.</summary>
public static class GrpcHealthNames
{
    /// <summary>How often the health checks run for grpc.health.v1 (its answers are at most this old).</summary>
    public static readonly TimeSpan Period = TimeSpan.FromSeconds(1);

    /// <summary>
    /// grpc.health.v1 answered from the health checks' last results (Grpc.AspNetCore.HealthChecks'
    /// <c>UseHealthChecksCache</c>), which the checks' publisher refreshes every <see cref="Period"/>,
    /// and which the host's start fills before anyone hears it started. By the library's default every
    /// Check call ran every check, a quarter of a health call's cost (bench/results/services.md);
    /// REST's <c>/health</c> and <c>/alive</c> still run them on each request.
    /// </summary>
    public static void AddCachedGrpcHealth(IServiceCollection services)
    {
        ArgumentNullException.ThrowIfNull(services);
        services.AddGrpcHealthChecks(o => o.UseHealthChecksCache = true);
        // The first timed run comes a period after the start, so a check run before the store was ready cannot overwrite the first results.
        services.Configure<HealthCheckPublisherOptions>(o => (o.Delay, o.Period) = (Period, Period));
        services.AddHostedService<FirstResults>();
    }

    /// <summary>Runs the checks once the host has started (its store ready) and publishes them, before the host's start returns.</summary>
    private sealed class FirstResults(HealthCheckService checks, IEnumerable<IHealthCheckPublisher> publishers) : IHostedLifecycleService
    {
        public async Task StartedAsync(CancellationToken cancellationToken)
        {
            var report = await checks.CheckHealthAsync(cancellationToken).ConfigureAwait(false);
            foreach (var publisher in publishers)
            {
                await publisher.PublishAsync(report, cancellationToken).ConfigureAwait(false);
            }
        }

        public Task StartingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public Task StoppingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public Task StoppedAsync(CancellationToken cancellationToken) => Task.CompletedTask;
    }

    /// <summary>
    /// Names every gRPC service the host maps to grpc.health.v1 (each reported as the server's
    /// health), so a caller can ask for the service it uses. Call once every service is mapped.
    /// </summary>
    public static void MapGrpcHealthNames(this WebApplication app)
    {
        ArgumentNullException.ThrowIfNull(app);
        var health = app.Services.GetRequiredService<IOptions<GrpcHealthChecksOptions>>().Value;
        var names = ((IEndpointRouteBuilder)app).DataSources.SelectMany(d => d.Endpoints)
            .Select(e => e.Metadata.GetMetadata<GrpcMethodMetadata>()?.Method.ServiceName).OfType<string>().Distinct(StringComparer.Ordinal);
        foreach (var name in names)
        {
            health.Services.Map(name, _ => true);
        }
    }
}
