using System.Diagnostics;

namespace Salsa.Gateway.Hops;

/// <summary>
/// A hop as a span: <c>hop {service}/{operation}</c>, a child of its step's span and the parent of the
/// gRPC client span of each attempt, carrying the numbers of the hop table (<c>result.json</c>, the
/// CLI, the runs API) as <c>salsa.hop.*</c> attributes beside OpenTelemetry's <c>rpc.*</c> ones. Its
/// duration is the hop's latency, retries included.
/// </summary>
public static class HopTelemetry
{
    public const string StepAttribute = "salsa.hop.step";
    public const string LatencyAttribute = "salsa.hop.latency_ms";
    public const string ServerAttribute = "salsa.hop.server_ms";
    public const string QueueAttribute = "salsa.hop.queue_ms";
    public const string ComputeAttribute = "salsa.hop.compute_ms";
    public const string NetworkAttribute = "salsa.hop.network_ms";
    public const string RequestBytesAttribute = "salsa.hop.request_bytes";
    public const string ResponseBytesAttribute = "salsa.hop.response_bytes";
    public const string RetriesAttribute = "salsa.hop.retries";
    public const string OutcomeAttribute = "salsa.hop.outcome";

    private static readonly ActivitySource Source = new(RunEngine.ActivitySourceName);

    public static string SpanName(string service, string operation) => $"hop {service}/{operation}";

    /// <summary>Starts a hop's span under the current one (its step's); null when nothing listens.</summary>
    public static Activity? Start(string step, string service, string operation, DateTimeOffset start)
    {
        var span = Source.StartActivity(SpanName(service, operation), ActivityKind.Internal, parentContext: default, startTime: start);
        span?.SetTag("rpc.system", "grpc");
        span?.SetTag("rpc.service", service);
        span?.SetTag("rpc.method", operation);
        span?.SetTag(StepAttribute, step);
        return span;
    }

    /// <summary>Writes the hop's numbers on its span and ends it at the hop's latency.</summary>
    public static void End(Activity? span, Hop hop)
    {
        ArgumentNullException.ThrowIfNull(hop);
        if (span is null)
        {
            return;
        }

        span.SetTag(LatencyAttribute, hop.LatencyMs);
        span.SetTag(ServerAttribute, hop.ServerMs);
        span.SetTag(QueueAttribute, hop.QueueMs);
        span.SetTag(ComputeAttribute, hop.ComputeMs);
        span.SetTag(NetworkAttribute, hop.NetworkMs);
        span.SetTag(RequestBytesAttribute, hop.RequestBytes);
        span.SetTag(ResponseBytesAttribute, hop.ResponseBytes);
        span.SetTag(RetriesAttribute, hop.Retries);
        span.SetTag(OutcomeAttribute, hop.Outcome);
        if (hop.Outcome != "ok")
        {
            span.SetStatus(ActivityStatusCode.Error, hop.Outcome);
        }

        span.SetEndTime(hop.Start.UtcDateTime + TimeSpan.FromMilliseconds(hop.LatencyMs));
    }
}
