namespace Salsa.Contracts.Operations;

/// <summary>A step that ended without its outputs, for a reason the service gave.</summary>
public sealed class StepFailedException(string message) : Exception(message);
