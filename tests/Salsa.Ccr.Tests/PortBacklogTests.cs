using System.Diagnostics.Tracing;

namespace Salsa.Ccr.Tests;

/// <summary>Ports are unbounded; a backlog nobody receives is reported, not silent.</summary>
[Collection(RaceProbes.Collection)] // changes the process-wide threshold
public sealed class PortBacklogTests
{
    [Fact]
    public void PortWithNoReceiver_BacklogReachingTheThreshold_IsReportedAtEachDoubling()
    {
        var previous = CcrTelemetry.PortBacklogWarningThreshold;
        CcrTelemetry.PortBacklogWarningThreshold = 10_000;
        try
        {
            using var listener = new BacklogListener();
            var port = new Port<Guid>();
            for (var i = 0; i < 50_000; i++)
            {
                port.Post(Guid.Empty);
            }

            // Reported near 10,000, 20,000 and 40,000 (sampled every 1,024 posts), nothing else.
            Assert.Equal(3, listener.Events.Count);
            Assert.All(listener.Events, e => Assert.Equal(nameof(Guid), e.Type));
            Assert.InRange(listener.Events[0].Items, 10_000, 11_024);
            Assert.InRange(listener.Events[1].Items, 20_000, 22_048);
            Assert.InRange(listener.Events[2].Items, 40_000, 44_096);

            // A port someone receives from is never reported.
            using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
            var received = new Port<int>();
            dispatcher.DefaultQueue.Activate(Arbiter.Receive(true, received, (int _) => { }));
            for (var i = 0; i < 50_000; i++)
            {
                received.Post(i);
            }

            Assert.Equal(3, listener.Events.Count);
        }
        finally
        {
            CcrTelemetry.PortBacklogWarningThreshold = previous;
        }
    }

    private sealed class BacklogListener : EventListener
    {
        public List<(string Type, long Items)> Events { get; } = [];

        protected override void OnEventSourceCreated(EventSource eventSource)
        {
            if (eventSource.Name == CcrTelemetry.Name)
            {
                EnableEvents(eventSource, EventLevel.Warning);
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs eventData)
        {
            if (eventData.EventName == nameof(CcrEventSource.PortBacklog))
            {
                lock (Events)
                {
                    Events.Add(((string)eventData.Payload![0]!, (long)eventData.Payload[1]!));
                }
            }
        }
    }
}
