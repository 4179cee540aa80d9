using System.Diagnostics.Metrics;
using Grpc.Core;
using Salsa.Hosting.Telemetry;

namespace Salsa.Hosting.Rpc;

/// <summary>
/// <c>rpc.server.duration</c> (OpenTelemetry's RPC metric, milliseconds) of the gRPC calls a service
/// serves, by <c>rpc.service</c>, <c>rpc.method</c> and <c>rpc.grpc.status_code</c>, on its host's
/// meter (so in a process of several services each exports its own).
/// </summary>
internal sealed class RpcMetrics(IMeterFactory meterFactory)
{
    private readonly Histogram<double> _duration = meterFactory.Create(SalsaHosting.MeterName)
        .CreateHistogram("rpc.server.duration", "ms", "Duration of the gRPC calls the service served.", advice: TelemetryBuckets.Milliseconds);

    public void Record(string path, StatusCode status, double milliseconds)
    {
        if (!_duration.Enabled)
        {
            return; // nothing listens (no exporter): no tags split, boxed or looked at
        }

        GrpcSpanConventions.TrySplit(path, out var service, out var method);
        _duration.Record(milliseconds, new("rpc.system", "grpc"), new("rpc.service", service), new("rpc.method", method), new("rpc.grpc.status_code", (int)status));
    }
}
