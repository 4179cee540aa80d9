using System.Diagnostics;
using Salsa.Bench.Harness;

namespace Salsa.Bench.Experiments.Services;

/// <summary>One request-response, awaited by one caller at a time.</summary>
public delegate Task Caller();

/// <summary>Rate and latency percentiles of one measured window.</summary>
public sealed record LoadResult(double RequestsPerSecond, double P50Microseconds, double P99Microseconds);

/// <summary>
/// Closed-loop load: <c>callers</c> concurrent loops, each sending its next request when the last
/// one answered. A warm-up phase, then a measured window; a request counts when it completes
/// inside the window, and its latency is kept.
/// </summary>
public static class LoadDriver
{
    public static async Task<LoadResult> RunAsync(int callers, TimeSpan warmup, TimeSpan window, Func<Caller> create, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(create);
        var phase = new Phase();
        var loops = Enumerable.Range(0, callers).Select(_ => Task.Run(() => LoopAsync(create(), phase), cancellationToken)).ToArray();
        await Task.Delay(warmup, cancellationToken);
        var start = Stopwatch.GetTimestamp();
        Volatile.Write(ref phase.Value, Phase.Measuring);
        await Task.Delay(window, cancellationToken);
        Volatile.Write(ref phase.Value, Phase.Stopped);
        var seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        var latencies = (await Task.WhenAll(loops)).SelectMany(l => l).Select(ticks => ticks * 1e6 / Stopwatch.Frequency).ToArray();
        return new LoadResult(latencies.Length / seconds, Statistics.Percentile(latencies, 50), Statistics.Percentile(latencies, 99));
    }

    private static async Task<List<long>> LoopAsync(Caller call, Phase phase)
    {
        var latencies = new List<long>(1 << 14);
        int state;
        while ((state = Volatile.Read(ref phase.Value)) != Phase.Stopped)
        {
            var sent = Stopwatch.GetTimestamp();
            await call().ConfigureAwait(false);
            if (state == Phase.Measuring && Volatile.Read(ref phase.Value) == Phase.Measuring)
            {
                latencies.Add(Stopwatch.GetTimestamp() - sent);
            }
        }

        return latencies;
    }

    private sealed class Phase
    {
        public const int WarmingUp = 0;
        public const int Measuring = 1;
        public const int Stopped = 2;

        public int Value = WarmingUp;
    }
}
