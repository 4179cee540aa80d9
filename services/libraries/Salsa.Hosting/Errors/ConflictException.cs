namespace Salsa.Hosting.Errors;

/// <summary>A request the current state does not allow (e.g. the result of a job still running).</summary>
public sealed class ConflictException(string message) : Exception(message);
