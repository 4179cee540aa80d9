using System.Collections.Concurrent;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Logging;
using Salsa.Hosting.Host;
using Salsa.Hosting.Telemetry;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>The OTLP variables are process-wide: nothing else runs while they are set.</summary>
[CollectionDefinition(DisableParallelization = true)]
public sealed class ProcessEnvironmentCollection;

/// <summary>
/// With <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> set, a run's one trace is exported: the gateway's run and
/// step spans and the spans of every service it called, all under the run's trace id — received by
/// a real HTTP endpoint speaking OTLP/HTTP protobuf.
/// </summary>
[Collection(typeof(ProcessEnvironmentCollection))]
public sealed class OtlpTraceTests
{
    private static readonly string[] s_variables = [ServiceTelemetry.OtlpEndpointVariable, "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_BSP_SCHEDULE_DELAY"];

    [Fact]
    public async Task EndpointSet_TheRunsTraceIsExported_FromTheGatewayAndEveryService()
    {
        var token = TestContext.Current.CancellationToken;
        var traces = new ConcurrentBag<byte[]>();
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
            if (signal == "traces")
            {
                traces.Add(body.ToArray());
            }

            return Results.Bytes([], "application/x-protobuf");
        });
        await collector.StartAsync(token);

        var saved = s_variables.ToDictionary(v => v, Environment.GetEnvironmentVariable);
        string traceId;
        try
        {
            Environment.SetEnvironmentVariable(ServiceTelemetry.OtlpEndpointVariable, $"http://127.0.0.1:{port}");
            Environment.SetEnvironmentVariable("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf");
            Environment.SetEnvironmentVariable("OTEL_BSP_SCHEDULE_DELAY", "100");
            using var directory = new TemporaryDirectory();
            await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
            var id = await gateway.StartRunAsync(new { yaml = TestWorkflows.Small }, token);
            var run = await gateway.Runs.WaitAsync(id, token);
            Assert.True(run.State == Runs.RunState.Succeeded, run.Error);
            traceId = run.TraceId!;
            await gateway.StopAsync(); // flushes every exporter: the gateway's and the embedded services'
        }
        finally
        {
            foreach (var (name, value) in saved)
            {
                Environment.SetEnvironmentVariable(name, value);
            }
        }

        var id16 = Convert.FromHexString(traceId);
        var withTrace = traces.Where(t => t.AsSpan().IndexOf(id16) >= 0).ToList();
        Assert.Contains(withTrace, t => t.AsSpan().IndexOf("run small"u8) >= 0); // the gateway's root span
        Assert.Contains(withTrace, t => t.AsSpan().IndexOf("step cluster"u8) >= 0);
        foreach (var service in new[] { "census", "kmeans" })
        {
            // A service's own export (its service.name resource) carries spans of the run's trace.
            var name = System.Text.Encoding.UTF8.GetBytes(service);
            Assert.Contains(withTrace, t => t.AsSpan().IndexOf(name) >= 0 && t.AsSpan().IndexOf("salsa."u8) >= 0);
        }
    }
}
