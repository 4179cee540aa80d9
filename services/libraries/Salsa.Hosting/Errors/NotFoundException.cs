namespace Salsa.Hosting.Errors;

/// <summary>An id that names nothing (dataset, job, artifact).</summary>
public sealed class NotFoundException(string message) : Exception(message);
