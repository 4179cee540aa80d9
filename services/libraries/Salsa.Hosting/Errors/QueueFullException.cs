namespace Salsa.Hosting.Errors;

/// <summary>The job queue is full: the caller should retry after <see cref="RetryAfter"/>.</summary>
public sealed class QueueFullException(string message, TimeSpan retryAfter) : Exception(message)
{
    public TimeSpan RetryAfter { get; } = retryAfter;
}
