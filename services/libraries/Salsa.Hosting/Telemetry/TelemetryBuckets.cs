using System.Diagnostics.Metrics;

namespace Salsa.Hosting.Telemetry;

/// <summary>
/// Histogram buckets for durations in milliseconds that fit the platform's work, from a store read
/// (1 ms) to a national annealing on a small machine (minutes): OpenTelemetry's default buckets end at
/// 10 s and are coarse above 1 s (a 2.8 s job showed as P50 = 5,000 ms).
/// </summary>
public static class TelemetryBuckets
{
    public static InstrumentAdvice<double> Milliseconds { get; } = new()
    {
        HistogramBucketBoundaries = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000],
    };
}
