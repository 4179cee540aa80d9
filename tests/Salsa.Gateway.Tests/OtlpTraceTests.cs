using System.Collections.Concurrent;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Salsa.Gateway.Hops;
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
        IReadOnlyList<Hop> hops;
        string runId;
        var listeners = new Dictionary<int, string>(); // port → the service listening on it
        try
        {
            Environment.SetEnvironmentVariable(ServiceTelemetry.OtlpEndpointVariable, $"http://127.0.0.1:{port}");
            Environment.SetEnvironmentVariable("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf");
            Environment.SetEnvironmentVariable("OTEL_BSP_SCHEDULE_DELAY", "100");
            Environment.SetEnvironmentVariable("OTEL_METRIC_EXPORT_INTERVAL", "200");
            using var directory = new TemporaryDirectory();
            // Information for the exporter (the run's life), warnings only on the console.
            var logging = new Dictionary<string, string?> { ["Logging:LogLevel:Default"] = "Information", ["Logging:Console:LogLevel:Default"] = "Warning" };
            await using (var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), logging, token))
            {
                var id = await gateway.StartRunAsync(new { yaml = TestWorkflows.Small }, token);
                var run = await gateway.Runs.WaitAsync(id, token);
                Assert.True(run.State == Runs.RunState.Succeeded, run.Error);
                traceId = run.TraceId!;
                hops = run.Hops;
                runId = id.ToString();
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

        var everySpan = received.GetValueOrDefault("traces", []).SelectMany(OtlpExports.Spans).ToList();
        var spans = everySpan.Where(s => s.TraceId == traceId).ToList();
        var repeated = spans.GroupBy(s => s.SpanId).Where(g => g.Count() > 1).Select(g => $"{g.First().Name} ×{g.Count()} ({string.Join(", ", g.Select(s => s.Service))})").ToList();
        Assert.True(repeated.Count == 0, $"Spans exported more than once: {string.Join("; ", repeated)}");
        var byId = spans.ToDictionary(s => s.SpanId);

        // The gateway's own spans: the run (the trace's root) and a span per step.
        var root = Assert.Single(spans, s => s.ParentSpanId is null);
        Assert.Equal(("run small", GatewayService.Name), (root.Name, root.Service));

        // The request that started the run (POST /api/runs, in its own trace) names the run, and the run's root links to it.
        var request = Assert.Single(everySpan, s => s.Kind == SpanKind.Server && Equals(s.Attributes.GetValueOrDefault("salsa.run"), runId));
        Assert.StartsWith("POST /api/runs", request.Name, StringComparison.Ordinal);
        Assert.Equal([(request.TraceId, request.SpanId)], root.Links);
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

        // Every hop is a span under its step, the parent of its gRPC client span(s), carrying the numbers of the run's hop table.
        var hopSpans = spans.Where(s => s.Name.StartsWith("hop ", StringComparison.Ordinal)).ToList();
        Assert.Equal(hops.Count, hopSpans.Count);
        foreach (var hop in hops)
        {
            var span = Assert.Single(hopSpans, s => s.Name == HopTelemetry.SpanName(hop.Service, hop.Operation)
                && Equals(s.Attributes[HopTelemetry.StepAttribute], hop.Step) && Equals(s.Attributes[HopTelemetry.LatencyAttribute], hop.LatencyMs));
            Assert.Equal($"step {hop.Step}", byId[span.ParentSpanId!].Name);
            Assert.Equal(hop.RequestBytes, span.Attributes[HopTelemetry.RequestBytesAttribute]);
            Assert.Equal(hop.ResponseBytes, span.Attributes[HopTelemetry.ResponseBytesAttribute]);
            Assert.Equal((long)hop.Retries, span.Attributes[HopTelemetry.RetriesAttribute]);
            Assert.Equal(hop.Outcome, span.Attributes[HopTelemetry.OutcomeAttribute]);
            Assert.Equal(hop.ServerMs, span.Attributes.GetValueOrDefault(HopTelemetry.ServerAttribute) as double?);
            Assert.Equal(hop.QueueMs, span.Attributes.GetValueOrDefault(HopTelemetry.QueueAttribute) as double?);
            Assert.Equal(hop.ComputeMs, span.Attributes.GetValueOrDefault(HopTelemetry.ComputeAttribute) as double?);
            Assert.Equal(hop.NetworkMs, span.Attributes.GetValueOrDefault(HopTelemetry.NetworkAttribute) as double?);
            Assert.Equal(("grpc", hop.Service, hop.Operation), (span.Attributes["rpc.system"], span.Attributes["rpc.service"], span.Attributes["rpc.method"]));
        }

        Assert.Contains(hops, h => h.ServerMs is not null);
        Assert.Contains(hops, h => h.ComputeMs is not null);
        Assert.All(hopSpans.Where(h => h.Attributes[HopTelemetry.RequestBytesAttribute] is long bytes && bytes >= 0 && Equals(h.Attributes[HopTelemetry.OutcomeAttribute], "ok") && h.Attributes.ContainsKey(HopTelemetry.ServerAttribute)),
            h => Assert.Contains(spans, s => s.ParentSpanId == h.SpanId && s.Kind == SpanKind.Client));

        // The k-means job: its span under the call that started it, its queue wait and compute as child
        // spans (as long as the job's own figures say), one event per restart on the compute span.
        var job = Assert.Single(spans, s => s.Name == "kmeans job");
        Assert.Equal("kmeans", job.Service);
        var queue = Assert.Single(spans, s => s.Name == "queue" && s.ParentSpanId == job.SpanId);
        var compute = Assert.Single(spans, s => s.Name == "compute" && s.ParentSpanId == job.SpanId);
        Assert.Equal((double)job.Attributes["salsa.job.queue_ms"], queue.DurationMs, 2.0);
        Assert.Equal((double)job.Attributes["salsa.job.compute_ms"], compute.DurationMs, 10.0);
        Assert.True(queue.EndNanoseconds <= compute.StartNanoseconds && compute.EndNanoseconds <= job.EndNanoseconds);
        Assert.Contains(compute.Events, e => e.Name.StartsWith("restart ", StringComparison.Ordinal) && e.Attributes["salsa.progress.objective"] is double);
        Assert.All(compute.Events, e => Assert.True(e.Attributes.ContainsKey("salsa.progress.iteration")));

        // gRPC client spans name the server they called, as the RPC conventions say.
        var calls = spans.Where(s => s.Kind == SpanKind.Client && s.Attributes.ContainsKey("rpc.system")).ToList();
        Assert.NotEmpty(calls);
        Assert.All(calls, c => Assert.True(c.Attributes.GetValueOrDefault("server.address") is "127.0.0.1" && c.Attributes.GetValueOrDefault("server.port") is long, $"{c} has no server.address/server.port"));

        foreach (var service in new[] { "census", "kmeans" })
        {
            Assert.Contains(spans, s => s.Service == service && s.Kind == SpanKind.Server);
        }

        // Metrics: a service's jobs are counted by that service only (its host's meter), never by the gateway.
        var metrics = received.GetValueOrDefault("metrics", []).SelectMany(OtlpExports.Metrics).Distinct().ToList();
        Assert.Contains(("kmeans", "salsa.jobs.started"), metrics);
        Assert.Contains(("kmeans", "salsa.jobs.compute_time"), metrics);
        Assert.Contains(("kmeans", "rpc.server.duration"), metrics);
        Assert.Contains(("census", "rpc.server.duration"), metrics);
        Assert.Contains((GatewayService.Name, "salsa.hop.duration"), metrics);
        Assert.Contains((GatewayService.Name, "salsa.runs.ended"), metrics);
        Assert.Contains((GatewayService.Name, "salsa.steps.ended"), metrics);
        Assert.Contains((GatewayService.Name, "dotnet.gc.collections"), metrics); // the runtime's own meter, once per process

        // Logs: the run's life at Information, each step's lines in the run's trace.
        var logs = received.GetValueOrDefault("logs", []).SelectMany(OtlpExports.Logs).Where(l => l.Service == GatewayService.Name && l.Body.Contains(runId, StringComparison.Ordinal)).ToList();
        Assert.Contains(logs, l => l.Body.Contains("accepted", StringComparison.Ordinal));
        Assert.Contains(logs, l => l.Body.Contains("ended Succeeded", StringComparison.Ordinal));
        foreach (var step in new[] { "import", "query", "cluster" })
        {
            Assert.Contains(logs, l => l.Body.Contains($"step {step} (", StringComparison.Ordinal) && l.Body.EndsWith("started", StringComparison.Ordinal) && l.TraceId == traceId);
            Assert.Contains(logs, l => l.Body.Contains($"step {step} (", StringComparison.Ordinal) && l.Body.Contains("Succeeded in", StringComparison.Ordinal) && l.TraceId == traceId);
        }
        Assert.DoesNotContain(metrics, m => m.Metric.StartsWith("salsa.jobs.", StringComparison.Ordinal) && m.Service == GatewayService.Name);
    }
}
