using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Salsa.Grid;

/// <summary>
/// The machine level's own telemetry: a span per job's run on a coordinator and, under it, a span
/// per stretch between checkpoints with its passes split into compute and messaging; counters of
/// passes and retried partition calls, and a histogram of the messaging per pass.
/// </summary>
public static class GridTelemetry
{
    public const string Name = "Salsa.Grid";

    /// <summary>Orleans' own meter (grain calls, activations, messaging, membership), exported beside ours.</summary>
    public const string OrleansMeter = "Microsoft.Orleans";

    /// <summary>
    /// Orleans' activity sources: a span per grain call. A job makes thousands of calls per second,
    /// so they are exported only when <c>Cluster:TraceGrainCalls</c> is set; the job's spans summarise them.
    /// </summary>
    public static readonly string[] OrleansSources = ["Microsoft.Orleans.Runtime", "Microsoft.Orleans.Application"];

    public static readonly ActivitySource Source = new(Name);

    private static readonly Meter s_meter = new(Name);

    public static readonly Counter<long> Passes = s_meter.CreateCounter<long>("salsa.grid.passes", "{pass}", "Passes a coordinator sent to its partitions.");

    public static readonly Counter<long> Retries = s_meter.CreateCounter<long>("salsa.grid.partition_retries", "{call}", "Partition calls asked again after a silo was lost or a call went unanswered.");

    public static readonly Counter<long> Forwarded = s_meter.CreateCounter<long>(
        "salsa.grid.pass.forwarded", "{partition}", "Partitions a silo's pass was asked for that the silo no longer held, passed on to their own grains.");

    public static readonly Counter<long> Moved = s_meter.CreateCounter<long>(
        "salsa.grid.partitions.moved", "{partition}", "Partitions moved on purpose at a boundary: to a silo that joined, off a silo that is leaving.");

    public static readonly Histogram<double> Messaging = s_meter.CreateHistogram(
        "salsa.grid.pass.messaging", "us", "Per pass, the coordinator's wait beyond the busiest silo's computing.",
        advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = [50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000] });
}
