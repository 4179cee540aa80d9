using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using OpenTelemetry;
using OpenTelemetry.Logs;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;

namespace Salsa.Hosting.Telemetry;

/// <summary>
/// OpenTelemetry for a service: traces (ASP.NET Core's and HttpClient's built-in sources, Salsa.Grpc,
/// Salsa.Ccr, Npgsql and the service's own), metrics and logs. Exported over OTLP only when
/// <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> is set; W3C trace context is the propagator.
/// (OpenTelemetry.Extensions.Hosting is not available here: the providers are built with the SDK's
/// own builders and disposed with the host — see docs/dependencies.md.)
/// </summary>
public static class ServiceTelemetry
{
    public const string OtlpEndpointVariable = "OTEL_EXPORTER_OTLP_ENDPOINT";

    /// <summary>Sources every service listens to, besides its own.</summary>
    public static readonly string[] Sources =
        ["Microsoft.AspNetCore", "System.Net.Http", Salsa.Grpc.GrpcDiagnostics.ActivitySourceName, Salsa.Ccr.CcrTelemetry.Name, "Npgsql", SalsaHosting.ActivitySourceName];

    public static readonly string[] Meters =
        ["Microsoft.AspNetCore.Hosting", "Microsoft.AspNetCore.Server.Kestrel", "System.Net.Http", Salsa.Ccr.CcrTelemetry.Name, "Npgsql", SalsaHosting.MeterName];

    public static void Add(IServiceCollection services, ILoggingBuilder logging, string serviceName)
    {
        var endpoint = Environment.GetEnvironmentVariable(OtlpEndpointVariable);
        var resource = ResourceBuilder.CreateDefault().AddService(serviceName);

        var tracing = Sdk.CreateTracerProviderBuilder().SetResourceBuilder(resource).AddSource([.. Sources, serviceName]);
        var metrics = Sdk.CreateMeterProviderBuilder().SetResourceBuilder(resource).AddMeter([.. Meters, serviceName]);
        if (!string.IsNullOrWhiteSpace(endpoint))
        {
            tracing.AddOtlpExporter();
            metrics.AddOtlpExporter();
            logging.AddOpenTelemetry(o =>
            {
                o.SetResourceBuilder(resource);
                o.IncludeFormattedMessage = true;
                o.AddOtlpExporter();
            });
        }

        // Built now and kept for the host's lifetime; the holder disposes them (flushing exports) at stop.
        services.AddSingleton(new TelemetryProviders(tracing.Build(), metrics.Build()));
        services.AddHostedService(sp => sp.GetRequiredService<TelemetryProviders>());
    }
}

internal sealed class TelemetryProviders(TracerProvider? tracer, MeterProvider? meter) : IHostedService, IDisposable
{
    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken)
    {
        tracer?.ForceFlush(2000);
        meter?.ForceFlush(2000);
        return Task.CompletedTask;
    }

    public void Dispose()
    {
        tracer?.Dispose();
        meter?.Dispose();
    }
}
