using System.Diagnostics.Tracing;

namespace Salsa.Ccr;

/// <summary>
/// The runtime's rare events, for dotnet-trace and EventListeners (provider <c>Salsa.Ccr</c>). Only
/// conditions a developer must hear of: nothing per message.
/// </summary>
[EventSource(Name = CcrTelemetry.Name)]
public sealed class CcrEventSource : EventSource
{
    public static readonly CcrEventSource Log = new();

    private CcrEventSource()
    {
    }

    /// <summary>A port with no receiver holds <paramref name="items"/> items (see <see cref="CcrTelemetry.PortBacklogWarningThreshold"/>).</summary>
    [Event(1, Level = EventLevel.Warning, Message = "A port of {0} with no receiver holds {1} items: is a receiver missing?")]
    public void PortBacklog(string itemType, long items)
    {
        if (IsEnabled())
        {
            WriteEvent(1, itemType, items);
        }
    }
}
