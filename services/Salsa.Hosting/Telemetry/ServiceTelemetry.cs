using System.Diagnostics.Metrics;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
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
/// OpenTelemetry for a service: traces (ASP.NET Core's and HttpClient's built-in sources, grpc-dotnet's client,
/// Salsa.Ccr, Npgsql and the service's own), metrics and logs, under the resource
/// <c>service.name</c> = the service. Exported over OTLP only when <c>OTEL_EXPORTER_OTLP_ENDPOINT</c>
/// is set; W3C trace context is the propagator. (OpenTelemetry.Extensions.Hosting is not available
/// here: the providers are built with the SDK's own builders and disposed with the host — see
/// docs/dependencies.md.)
/// </summary>
/// <remarks>
/// <para>
/// The sources and meters are process-wide, and the gateway's embedded default runs every service's
/// host in its one process: each host's providers would see every span and every instrument and
/// export them once per host, under the wrong names. So each span is exported exactly once, by the
/// host it belongs to (<see cref="TelemetryOwners"/>): a server span by the host whose port received
/// the request, a client span or any other child by its in-process parent's host, a service's own root
/// spans by that service, the rest by the process's first host. The trace stays one trace across
/// hosts: the caller's client span and the callee's server span are linked by W3C
/// <c>traceparent</c> as between processes.
/// </para>
/// <para>
/// Metrics likewise: an instrument of a meter a host's <see cref="IMeterFactory"/> made (ASP.NET
/// Core's hosting and Kestrel meters, Salsa.Hosting's jobs meter, HttpClient's when made by the
/// host's factory) is exported by that host only; one of a process-wide static meter (Salsa.Ccr,
/// Npgsql, HttpClient outside a factory) by the process's first host only — in the embedded default
/// that is the gateway, and those are the process's totals, not one service's. Logs need nothing: each
/// host has its own logger factory.
/// </para>
/// </remarks>
public static class ServiceTelemetry
{
    public const string OtlpEndpointVariable = "OTEL_EXPORTER_OTLP_ENDPOINT";

    /// <summary>Sources every service listens to, besides its own.</summary>
    public static readonly string[] Sources =
        ["Microsoft.AspNetCore", "System.Net.Http", "Grpc.Net.Client", Salsa.Ccr.CcrTelemetry.Name, "Npgsql", SalsaHosting.ActivitySourceName];

    public static readonly string[] Meters =
        ["Microsoft.AspNetCore.Hosting", "Microsoft.AspNetCore.Server.Kestrel", "System.Net.Http", Salsa.Ccr.CcrTelemetry.Name, "Npgsql", SalsaHosting.MeterName];

    public static void Add(IServiceCollection services, ILoggingBuilder logging, string serviceName)
    {
        var export = !string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable(OtlpEndpointVariable));
        var resource = ResourceBuilder.CreateDefault().AddService(serviceName);
        if (export)
        {
            logging.AddOpenTelemetry(o =>
            {
                o.SetResourceBuilder(resource);
                o.IncludeFormattedMessage = true;
                o.AddOtlpExporter();
            });

            // The request being served is what tells which host a server span belongs to.
            services.AddHttpContextAccessor();
        }

        // Built as the host starts (it resolves its hosted services), when its IMeterFactory is known to
        // the metric views; kept for the host's lifetime and disposed (flushing exports) with it.
        services.AddSingleton(sp => new TelemetryProviders(serviceName, resource, export, sp));
        services.AddHostedService(sp => sp.GetRequiredService<TelemetryProviders>());
    }
}

/// <summary>A host's tracer and meter providers, and its place among the process's hosts.</summary>
internal sealed class TelemetryProviders : IHostedLifecycleService, IDisposable
{
    private readonly TelemetryOwner _owner;
    private readonly IServiceProvider _services;
    private readonly TracerProvider? _tracer;
    private readonly MeterProvider? _meter;
    private bool _disposed;

    public TelemetryProviders(string serviceName, ResourceBuilder resource, bool export, IServiceProvider services)
    {
        _owner = TelemetryOwners.Register(serviceName);
        _services = services;
        var meterFactory = services.GetService<IMeterFactory>();
        var tracing = Sdk.CreateTracerProviderBuilder().SetResourceBuilder(resource).AddSource([.. ServiceTelemetry.Sources, serviceName]);
        var metrics = Sdk.CreateMeterProviderBuilder().SetResourceBuilder(resource).AddMeter([.. ServiceTelemetry.Meters, serviceName])
            .AddView(instrument => TelemetryOwners.Keeps(_owner, meterFactory, instrument) ? null : MetricStreamConfiguration.Drop);
        if (export)
        {
            tracing.AddProcessor(new SpanClaimProcessor()).AddProcessor(new GrpcSpanConventions()).AddProcessor(OwnedSpansExportProcessor.Create(_owner));
            metrics.AddOtlpExporter();
        }

        // Nothing to export, nothing to collect: no provider listens, so requests make no spans and
        // instruments aggregate nothing (tests and tools subscribe with listeners of their own).
        _tracer = export ? tracing.Build() : null;
        _meter = export ? metrics.Build() : null;
    }

    public Task StartingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>Kestrel is listening now: the requests on its ports are this host's.</summary>
    public Task StartedAsync(CancellationToken cancellationToken)
    {
        if (_services.GetService<IServer>()?.Features.Get<IServerAddressesFeature>() is { } addresses)
        {
            TelemetryOwners.Listen(_owner, addresses.Addresses.Select(a => BindingAddress.Parse(a).Port));
        }

        return Task.CompletedTask;
    }

    public Task StoppingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken)
    {
        _tracer?.ForceFlush(2000);
        _meter?.ForceFlush(2000);
        return Task.CompletedTask;
    }

    public Task StoppedAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _tracer?.Dispose();
        _meter?.Dispose();
        TelemetryOwners.Unregister(_owner);
    }
}
