using System.Collections.Concurrent;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Salsa.Gateway.Services;
using Salsa.Hosting.Host;
using Salsa.Hosting.Telemetry;
using Salsa.Testing;
using SpanKind = Salsa.Gateway.Tests.ExportedSpan.SpanKind;

namespace Salsa.Gateway.Tests;

/// <summary>The OTLP variables are process-wide: nothing else runs while they are set.</summary>
[CollectionDefinition(DisableParallelization = true)]
public sealed class ProcessEnvironmentCollection;

/// <summary>
/// With <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> set, a run's one trace is exported — received by a real
/// HTTP endpoint speaking OTLP/HTTP protobuf and read field by field — by the gateway and the services
/// it hosts in its process: every span exactly once, under the <c>service.name</c> of the host it
/// belongs to.
/// </summary>
[Collection(typeof(ProcessEnvironmentCollection))]
public sealed class OtlpTraceTests
{
    private static readonly string[] s_variables =
        [ServiceTelemetry.OtlpEndpointVariable, "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_BSP_SCHEDULE_DELAY", "OTEL_METRIC_EXPORT_INTERVAL"];

    [Fact]
    public async Task EndpointSet_TheRunsTraceIsExportedOnce_EachSpanByTheServiceItBelongsTo()
    {
        var token = TestContext.Current.CancellationToken;
        var received = new ConcurrentDictionary<string, ConcurrentBag<byte[]>>(StringComparer.Ordinal);
        var port = ServicePorts.NextFreeLoopbackPort();
        var builder = WebApplication.CreateSlimBuilder();
        builder.Configuration.Sources.Clear(); // not the appsettings.json copied beside the tests (the gateway's ports)
        builder.WebHost.ConfigureKestrel(k => k.Listen(System.Net.IPAddress.Loopback, port));
        builder.Logging.ClearProviders();
        await using var collector = builder.Build();
        collector.MapPost("/v1/{signal}", async (string signal, HttpRequest request) =>
        {
            using var body = new MemoryStream();
            await request.Body.CopyToAsync(body);
            received.GetOrAdd(signal, _ => []).Add(body.ToArray());
            return Results.Bytes([], "application/x-protobuf");
        });
        await collector.StartAsync(token);

        var saved = s_variables.ToDictionary(v => v, Environment.GetEnvironmentVariable);
        string traceId;
        var listeners = new Dictionary<int, string>(); // port → the service listening on it
        try
        {
            Environment.SetEnvironmentVariable(ServiceTelemetry.OtlpEndpointVariable, $"http://127.0.0.1:{port}");
            Environment.SetEnvironmentVariable("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf");
            Environment.SetEnvironmentVariable("OTEL_BSP_SCHEDULE_DELAY", "100");
            Environment.SetEnvironmentVariable("OTEL_METRIC_EXPORT_INTERVAL", "200");
            using var directory = new TemporaryDirectory();
            await using (var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token))
            {
                var id = await gateway.StartRunAsync(new { yaml = TestWorkflows.Small }, token);
                var run = await gateway.Runs.WaitAsync(id, token);
                Assert.True(run.State == Runs.RunState.Succeeded, run.Error);
                traceId = run.TraceId!;
                listeners[gateway.Ports.RestAddress.Port] = listeners[gateway.Ports.GrpcAddress.Port] = GatewayService.Name;
                foreach (var endpoint in gateway.App.Services.GetRequiredService<ServiceDirectory>().Endpoints)
                {
                    Assert.True(endpoint.Embedded, endpoint.Name);
                    listeners[endpoint.GrpcAddress.Port] = endpoint.Name;
                    listeners[endpoint.RestAddress!.Port] = endpoint.Name;
                }
            } // stopped and disposed, with the services it hosts: every provider has flushed
        }
        finally
        {
            foreach (var (name, value) in saved)
            {
                Environment.SetEnvironmentVariable(name, value);
            }
        }

        var spans = received.GetValueOrDefault("traces", []).SelectMany(OtlpExports.Spans).Where(s => s.TraceId == traceId).ToList();
        var repeated = spans.GroupBy(s => s.SpanId).Where(g => g.Count() > 1).Select(g => $"{g.First().Name} ×{g.Count()} ({string.Join(", ", g.Select(s => s.Service))})").ToList();
        Assert.True(repeated.Count == 0, $"Spans exported more than once: {string.Join("; ", repeated)}");
        var byId = spans.ToDictionary(s => s.SpanId);

        // The gateway's own spans: the run (the trace's root) and a span per step.
        var root = Assert.Single(spans, s => s.ParentSpanId is null);
        Assert.Equal(("run small", GatewayService.Name), (root.Name, root.Service));
        var steps = spans.Where(s => s.Name.StartsWith("step ", StringComparison.Ordinal)).ToList();
        Assert.Equal(["step cluster", "step import", "step query"], steps.Select(s => s.Name).Order(StringComparer.Ordinal));
        Assert.All(steps, s => Assert.Equal(GatewayService.Name, s.Service));

        // Every other span is its parent's service's — unless it serves a call, when it is the
        // service's listening on the port the call went to (HttpClient's span: server.port).
        foreach (var span in spans.Where(s => s != root))
        {
            Assert.True(byId.TryGetValue(span.ParentSpanId!, out var parent), $"{span}: its parent {span.ParentSpanId} was not exported");
            var expected = span.Kind == SpanKind.Server && parent.Kind == SpanKind.Client
                ? listeners[(int)(long)parent.Attributes["server.port"]]
                : parent.Service;
            Assert.True(expected == span.Service, $"{span} (child of {parent}) was exported as {span.Service}'s, not {expected}'s");
        }

        foreach (var service in new[] { "census", "kmeans" })
        {
            Assert.Contains(spans, s => s.Service == service && s.Kind == SpanKind.Server);
        }

        // Metrics: a service's jobs are counted by that service only (its host's meter), never by the gateway.
        var metrics = received.GetValueOrDefault("metrics", []).SelectMany(OtlpExports.Metrics).Distinct().ToList();
        Assert.Contains(("kmeans", "salsa.jobs.started"), metrics);
        Assert.DoesNotContain(metrics, m => m.Metric.StartsWith("salsa.jobs.", StringComparison.Ordinal) && m.Service == GatewayService.Name);
    }
}
