namespace Salsa.Hosting.Errors;

/// <summary>A request beyond a configured limit (points, dimensions, clusters, bytes).</summary>
public sealed class LimitExceededException(string message) : Exception(message);
