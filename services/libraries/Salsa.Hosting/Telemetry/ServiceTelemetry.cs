using System.Diagnostics.Metrics;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Npgsql;
using OpenTelemetry.Logs;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;

namespace Salsa.Hosting.Telemetry;

/// <summary>
/// OpenTelemetry for a service: traces (ASP.NET Core's and HttpClient's built-in sources, grpc-dotnet's client,
/// Salsa.Ccr, Npgsql and the service's own), metrics and logs, under the resource
/// <c>service.name</c> = the service, through OpenTelemetry.Extensions.Hosting
/// (<c>AddOpenTelemetry().WithTracing/WithMetrics/WithLogging</c>) and the ASP.NET Core, HttpClient,
/// runtime and Npgsql instrumentation packages. Exported over OTLP only when
/// <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> is set; W3C trace context is the propagator.
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

    /// <summary>Sources every service listens to beyond the instrumentation packages' (ASP.NET Core, HttpClient, Npgsql), besides its own.</summary>
    public static readonly string[] Sources = ["Grpc.Net.Client", Salsa.Ccr.CcrTelemetry.Name, SalsaHosting.ActivitySourceName];

    /// <summary>
    /// Meters every service exports beyond the instrumentation packages' (ASP.NET Core, HttpClient,
    /// Npgsql), besides its own: .NET's own runtime meter (<c>System.Runtime</c>: GC, CPU, memory, thread
    /// pool — on .NET 9 and later the runtime instrumentation package leaves these to it), Salsa.Ccr's and
    /// Salsa.Hosting's.
    /// </summary>
    public static readonly string[] Meters = ["System.Runtime", Salsa.Ccr.CcrTelemetry.Name, SalsaHosting.MeterName];

    public static void Add(IServiceCollection services, string serviceName)
    {
        // The host's place among the process's hosts: which spans and instruments it exports.
        services.AddSingleton(sp => new TelemetryOwnership(serviceName, sp));
        services.AddHostedService(sp => sp.GetRequiredService<TelemetryOwnership>());
        if (string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable(OtlpEndpointVariable)))
        {
            // Nothing to export, nothing to collect: no provider listens, so requests make no spans
            // and instruments aggregate nothing (tests and tools subscribe with listeners of their own).
            return;
        }

        // The request being served is what tells which host a server span belongs to.
        services.AddHttpContextAccessor();
        services.AddOpenTelemetry()
            .ConfigureResource(resource => resource.AddService(serviceName))
            .WithTracing(tracing => tracing
                .AddAspNetCoreInstrumentation()
                .AddHttpClientInstrumentation()
                .AddNpgsql()
                .AddSource([.. Sources, serviceName])
                .AddProcessor(new SpanClaimProcessor())
                .AddProcessor(new GrpcSpanConventions())
                .AddProcessor(sp => OwnedSpansExportProcessor.Create(sp.GetRequiredService<TelemetryOwnership>().Owner)))
            .WithMetrics(metrics => metrics
                .AddAspNetCoreInstrumentation()
                .AddHttpClientInstrumentation()
                .AddRuntimeInstrumentation()
                .AddNpgsqlInstrumentation()
                .AddMeter([.. Meters, serviceName])
                .AddOtlpExporter())
            .WithLogging(logging => logging.AddOtlpExporter(), options => options.IncludeFormattedMessage = true);
        services.ConfigureOpenTelemetryMeterProvider((sp, metrics) =>
        {
            var owner = sp.GetRequiredService<TelemetryOwnership>().Owner;
            var meterFactory = sp.GetService<IMeterFactory>();
            metrics.AddView(instrument => TelemetryOwners.Keeps(owner, meterFactory, instrument) ? null : MetricStreamConfiguration.Drop);
        });
    }
}

/// <summary>
/// A host's place among the process's hosts (<see cref="TelemetryOwners"/>): registered when the host
/// builds its services, told the host's ports once Kestrel listens, removed when the host is disposed.
/// The providers themselves are OpenTelemetry.Extensions.Hosting's, one set per host.
/// </summary>
internal sealed class TelemetryOwnership : IHostedLifecycleService, IDisposable
{
    private readonly IServiceProvider _services;
    private bool _disposed;

    public TelemetryOwnership(string serviceName, IServiceProvider services)
    {
        Owner = TelemetryOwners.Register(serviceName);
        _services = services;
    }

    public TelemetryOwner Owner { get; }

    public Task StartingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    /// <summary>Kestrel is listening now: the requests on its ports are this host's.</summary>
    public Task StartedAsync(CancellationToken cancellationToken)
    {
        if (_services.GetService<IServer>()?.Features.Get<IServerAddressesFeature>() is { } addresses)
        {
            TelemetryOwners.Listen(Owner, addresses.Addresses.Select(a => BindingAddress.Parse(a).Port));
        }

        return Task.CompletedTask;
    }

    public Task StoppingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StoppedAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        TelemetryOwners.Unregister(Owner);
    }
}
