using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Salsa.Ccr;

/// <summary>
/// The runtime's telemetry names, public so hosts can subscribe (<c>AddMeter(CcrTelemetry.Name)</c>).
/// Counters only: the runtime never emits per-message events, so it costs nothing unobserved.
/// </summary>
public static class CcrTelemetry
{
    public const string Name = "Salsa.Ccr";

    public static readonly ActivitySource ActivitySource = new(Name);

    internal static readonly Meter Meter = new(Name);

    internal static readonly Counter<long> DispatchersCreated = Meter.CreateCounter<long>("salsa.ccr.dispatchers.created", description: "Dispatchers started.");

    internal static readonly Counter<long> HandlerFaults = Meter.CreateCounter<long>("salsa.ccr.handler.faults", description: "Handlers that threw.");

    internal static readonly Counter<long> UnobservedFaults = Meter.CreateCounter<long>("salsa.ccr.handler.faults.unobserved", description: "Handler exceptions no error port took.");

    internal static readonly Counter<long> TasksDiscarded = Meter.CreateCounter<long>("salsa.ccr.tasks.discarded", description: "Tasks dropped by a discard policy.");

    internal static readonly Counter<long> PortBacklogWarnings = Meter.CreateCounter<long>("salsa.ccr.port.backlog.warnings", description: "Ports whose unreceived items reached the warning threshold (and each doubling).");

    /// <summary>
    /// Items waiting in a port with no receiver at which a backlog warning is reported (then at each
    /// doubling); 0 turns the warning off. Process-wide; 1,000,000 by default.
    /// </summary>
    public static long PortBacklogWarningThreshold { get; set; } = 1_000_000;

    internal static readonly Counter<long> SpmdRuns = Meter.CreateCounter<long>("salsa.ccr.spmd.runs", description: "SPMD groups run.");
}
