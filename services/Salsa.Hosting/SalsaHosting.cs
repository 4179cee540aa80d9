using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Salsa.Hosting;

/// <summary>Telemetry names of the shared hosting layer (jobs, datasets).</summary>
public static class SalsaHosting
{
    public const string ActivitySourceName = "Salsa.Hosting";
    public const string MeterName = "Salsa.Hosting";

    internal static readonly ActivitySource ActivitySource = new(ActivitySourceName);
    internal static readonly Meter Meter = new(MeterName);
    internal static readonly Counter<long> JobsStarted = Meter.CreateCounter<long>("salsa.jobs.started");
    internal static readonly Counter<long> JobsRejected = Meter.CreateCounter<long>("salsa.jobs.rejected", description: "Jobs refused because the queue was full.");
    internal static readonly Histogram<double> JobQueueTime = Meter.CreateHistogram<double>("salsa.jobs.queue_time", "ms");
    internal static readonly Histogram<double> JobComputeTime = Meter.CreateHistogram<double>("salsa.jobs.compute_time", "ms");
}
