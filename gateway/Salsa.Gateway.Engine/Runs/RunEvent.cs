using Salsa.Gateway.Hops;

namespace Salsa.Gateway.Runs;

/// <summary>What the run's event stream carries.</summary>
public abstract record RunEvent
{
    public sealed record RunChanged(RunView View) : RunEvent;

    public sealed record StepChanged(StepView View) : RunEvent;

    public sealed record ProgressReported(string StepId, StepProgress Update) : RunEvent;

    public sealed record HopRecorded(Hop Hop) : RunEvent;

    public sealed record HopBegan(HopInFlight Call) : RunEvent;
}
