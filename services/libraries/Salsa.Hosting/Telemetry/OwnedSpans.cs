using System.Diagnostics;
using OpenTelemetry;
using OpenTelemetry.Exporter;

namespace Salsa.Hosting.Telemetry;

/// <summary>Decides every span's owner as it starts (<see cref="TelemetryOwners.Claim"/>), before its children start.</summary>
internal sealed class SpanClaimProcessor : BaseProcessor<Activity>
{
    public override void OnStart(Activity data)
    {
        ArgumentNullException.ThrowIfNull(data);
        TelemetryOwners.Claim(data);
    }
}

/// <summary>
/// A host's OTLP span export: the SDK's batch processor and OTLP exporter, as
/// <c>AddOtlpExporter</c> builds them from the <c>OTEL_EXPORTER_OTLP_*</c> and <c>OTEL_BSP_*</c>
/// variables, that exports only the spans the host owns.
/// </summary>
internal sealed class OwnedSpansExportProcessor : BatchActivityExportProcessor
{
    private readonly TelemetryOwner _owner;

    private OwnedSpansExportProcessor(TelemetryOwner owner, OtlpExporterOptions options, BatchExportProcessorOptions<Activity> batch)
        : base(new OtlpTraceExporter(options), batch.MaxQueueSize, batch.ScheduledDelayMilliseconds, batch.ExporterTimeoutMilliseconds, batch.MaxExportBatchSize) =>
        _owner = owner;

    public static OwnedSpansExportProcessor Create(TelemetryOwner owner)
    {
        var options = new OtlpExporterOptions(); // reads OTEL_EXPORTER_OTLP_* and, for its batch options, OTEL_BSP_*
        return new OwnedSpansExportProcessor(owner, options, options.BatchExportProcessorOptions);
    }

    public override void OnEnd(Activity data)
    {
        ArgumentNullException.ThrowIfNull(data);
        if (ReferenceEquals(TelemetryOwners.OwnerOf(data), _owner) && !IsBackgroundQuery(data))
        {
            base.OnEnd(data);
        }
    }

    /// <summary>
    /// A database call that belongs to no request, job or run: the cluster's membership and reminder
    /// polling, every few seconds from every silo and client. Each would be a one-span trace of its
    /// own and bury the runs' traces in the viewer; a query made for a request stays in its trace.
    /// </summary>
    private static bool IsBackgroundQuery(Activity span) =>
        span.Parent is null && span.ParentSpanId == default && string.Equals(span.Source.Name, "Npgsql", StringComparison.Ordinal);
}
