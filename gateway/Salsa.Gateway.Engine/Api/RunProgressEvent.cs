using Salsa.Gateway.Runs;

namespace Salsa.Gateway.Api;

/// <summary>A step's progress as the run's event stream sends it: which step, and its progress.</summary>
public sealed record RunProgressEvent(string Step, StepProgress Progress);
