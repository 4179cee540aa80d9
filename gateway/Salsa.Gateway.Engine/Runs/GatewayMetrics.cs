using System.Diagnostics.Metrics;
using Salsa.Gateway.Hops;
using Salsa.Hosting.Telemetry;

namespace Salsa.Gateway.Runs;

/// <summary>
/// The gateway's instruments, on its meter (<see cref="RunEngine.Name"/>, exported with its other
/// telemetry): hop latency per operation (<c>salsa.hop.duration</c>, the hop table's latency, retries
/// included), and the runs and steps that ended with their state and duration.
/// </summary>
internal static class GatewayMetrics
{
    private static readonly Meter s_meter = new(RunEngine.Name);

    private static readonly Histogram<double> s_hops = s_meter.CreateHistogram(
        "salsa.hop.duration", "ms", "A gateway → service call's latency as the step saw it, retries included.", advice: TelemetryBuckets.Milliseconds);

    private static readonly Counter<long> s_runs = s_meter.CreateCounter<long>("salsa.runs.ended", "{run}", "Runs that ended, by workflow and state.");

    private static readonly Histogram<double> s_runDuration = s_meter.CreateHistogram(
        "salsa.run.duration", "ms", "A run's time from its start to its end (its queue wait not included).", advice: TelemetryBuckets.Milliseconds);

    private static readonly Counter<long> s_steps = s_meter.CreateCounter<long>("salsa.steps.ended", "{step}", "Steps of ended runs, by operation and state (reused steps of a resumed run not counted).");

    private static readonly Histogram<double> s_stepDuration = s_meter.CreateHistogram(
        "salsa.step.duration", "ms", "A step's time, all its attempts included.", advice: TelemetryBuckets.Milliseconds);

    public static void Hop(Hop hop) =>
        s_hops.Record(hop.LatencyMs, new("rpc.service", hop.Service), new("rpc.method", hop.Operation), new(HopTelemetry.OutcomeAttribute, hop.Outcome));

    /// <summary>A run that ended, and its steps.</summary>
    public static void Ended(RunView run)
    {
        var state = run.State.ToString().ToLowerInvariant();
        s_runs.Add(1, new("salsa.workflow", run.Workflow), new("salsa.run.state", state));
        if (run is { Started: { } started, Finished: { } finished })
        {
            s_runDuration.Record((finished - started).TotalMilliseconds, new("salsa.workflow", run.Workflow), new("salsa.run.state", state));
        }

        foreach (var step in run.Steps.Where(s => !s.Reused))
        {
            var operation = $"{step.Service}.{step.Operation}";
            var stepState = step.State.ToString().ToLowerInvariant();
            s_steps.Add(1, new("salsa.operation", operation), new("salsa.step.state", stepState));
            if (step.DurationMs is { } ms)
            {
                s_stepDuration.Record(ms, new("salsa.operation", operation), new("salsa.step.state", stepState));
            }
        }
    }
}
