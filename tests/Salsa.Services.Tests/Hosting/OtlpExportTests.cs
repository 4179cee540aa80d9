using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;
using Salsa.Annealing;
using Salsa.Hosting.Host;
using Salsa.Hosting.Telemetry;
using Salsa.Services.Tests.Support;
using Salsa.Testing;

namespace Salsa.Services.Tests.Hosting;

/// <summary>The OTLP variables are process-wide: nothing else runs while they are set.</summary>
[CollectionDefinition(DisableParallelization = true)]
public sealed class ProcessEnvironmentCollection;

/// <summary>
/// With <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> set, a service exports its traces, metrics and logs over
/// OTLP — received here by a real HTTP endpoint speaking OTLP/HTTP protobuf — and its spans continue
/// the caller's W3C trace.
/// </summary>
[Collection(typeof(ProcessEnvironmentCollection))]
public sealed class OtlpExportTests
{
    private static readonly string[] Variables = [ServiceTelemetry.OtlpEndpointVariable, "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_BSP_SCHEDULE_DELAY", "OTEL_METRIC_EXPORT_INTERVAL"];

    [Fact]
    public async Task EndpointSet_TracesMetricsAndLogsReachTheCollector_WithTheCallersTraceId()
    {
        var token = TestContext.Current.CancellationToken;
        var received = new ConcurrentDictionary<string, ConcurrentBag<byte[]>>();
        var port = ServicePorts.NextFreeLoopbackPort();
        var builder = WebApplication.CreateSlimBuilder();
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

        var saved = Variables.ToDictionary(v => v, Environment.GetEnvironmentVariable);
        var traceId = ActivityTraceId.CreateRandom();
        try
        {
            Environment.SetEnvironmentVariable(ServiceTelemetry.OtlpEndpointVariable, $"http://127.0.0.1:{port}");
            Environment.SetEnvironmentVariable("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf");
            Environment.SetEnvironmentVariable("OTEL_BSP_SCHEDULE_DELAY", "100");
            Environment.SetEnvironmentVariable("OTEL_METRIC_EXPORT_INTERVAL", "200");
            using var directory = new TemporaryDirectory();
            await using var service = await ServiceUnderTest.StartAsync<AnnealingService>(TestStore.Sqlite(directory), new Dictionary<string, string?>
            {
                ["Logging:LogLevel:Salsa"] = "Information",
            });
            var dataset = await service.Rest.UploadCsvAsync("name=gmm&kind=dense&dimension=2&weights=true", Fixtures.GmmCsv());
            using var request = new HttpRequestMessage(HttpMethod.Post, "/api/annealing/jobs")
            {
                Content = new StringContent($"{{\"datasetId\":\"{dataset.DatasetId}\",\"maxClusters\":2}}", Encoding.UTF8, "application/json"),
            };
            request.Headers.Add("traceparent", $"00-{traceId}-{ActivitySpanId.CreateRandom()}-01");
            // No propagator on this client: the traceparent the test writes is the only one sent (the
            // process's own HttpClient instrumentation would add its own beside it).
            using var caller = new HttpClient(new SocketsHttpHandler { ActivityHeadersPropagator = null }) { BaseAddress = service.Ports.RestAddress };
            using var started = await caller.SendAsync(request, token);
            await RestCalls.EnsureAsync(started);
            await service.StopAsync(); // flushes every exporter
        }
        finally
        {
            foreach (var (name, value) in saved)
            {
                Environment.SetEnvironmentVariable(name, value);
            }
        }

        Assert.True(received.ContainsKey("traces") && received.ContainsKey("metrics") && received.ContainsKey("logs"),
            $"received only: {string.Join(", ", received.Keys)}");
        var traces = received["traces"].ToList();
        var id = Convert.FromHexString(traceId.ToHexString());
        Assert.Contains(traces, t => t.AsSpan().IndexOf(id) >= 0); // the server span continued the caller's trace
        Assert.Contains(traces, t => t.AsSpan().IndexOf("annealing"u8) >= 0); // service.name resource
        Assert.Contains(received["logs"], l => l.AsSpan().IndexOf("accepted"u8) >= 0); // the job-accepted log record
    }
}
