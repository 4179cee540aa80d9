using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Salsa.Hosting;

/// <summary>Telemetry names of the shared hosting layer (jobs, datasets).</summary>
public static class SalsaHosting
{
    public const string ActivitySourceName = "Salsa.Hosting";
    public const string MeterName = "Salsa.Hosting";

    internal static readonly ActivitySource ActivitySource = new(ActivitySourceName);
}

/// <summary>
/// The jobs instruments of one host, on the meter its <see cref="IMeterFactory"/> makes: in a process
/// that hosts several services each counts its own jobs and its own provider exports them.
/// </summary>
internal sealed class HostingMetrics
{
    public HostingMetrics(IMeterFactory meterFactory)
    {
        var meter = meterFactory.Create(SalsaHosting.MeterName); // the factory's: disposed with the host
        JobsStarted = meter.CreateCounter<long>("salsa.jobs.started");
        JobsRejected = meter.CreateCounter<long>("salsa.jobs.rejected", description: "Jobs refused because the queue was full.");
        JobQueueTime = meter.CreateHistogram("salsa.jobs.queue_time", "ms", "A job's wait between acceptance and start.", advice: Telemetry.TelemetryBuckets.Milliseconds);
        JobComputeTime = meter.CreateHistogram("salsa.jobs.compute_time", "ms", "A job's computing, start to end.", advice: Telemetry.TelemetryBuckets.Milliseconds);
    }

    public Counter<long> JobsStarted { get; }

    public Counter<long> JobsRejected { get; }

    public Histogram<double> JobQueueTime { get; }

    public Histogram<double> JobComputeTime { get; }
}
