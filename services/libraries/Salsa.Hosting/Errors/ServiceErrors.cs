using System.Net;
using Grpc.Core;

namespace Salsa.Hosting.Errors;

/// <summary>An id that names nothing (dataset, job, artifact).</summary>
public sealed class NotFoundException(string message) : Exception(message);

/// <summary>A request the current state does not allow (e.g. the result of a job still running).</summary>
public sealed class ConflictException(string message) : Exception(message);

/// <summary>The job queue is full: the caller should retry after <see cref="RetryAfter"/>.</summary>
public sealed class QueueFullException(string message, TimeSpan retryAfter) : Exception(message)
{
    public TimeSpan RetryAfter { get; } = retryAfter;
}

/// <summary>A request beyond a configured limit (points, dimensions, clusters, bytes).</summary>
public sealed class LimitExceededException(string message) : Exception(message);

/// <summary>
/// One mapping from the services' exceptions to what callers see, for both faces: an HTTP status
/// with a ProblemDetails body, and a gRPC status. Anything not listed is a server fault (500 /
/// UNKNOWN); bad input never is.
/// </summary>
public static class ServiceErrors
{
    public static (HttpStatusCode Http, StatusCode Grpc, string Title)? Classify(Exception exception) => exception switch
    {
        NotFoundException => (HttpStatusCode.NotFound, StatusCode.NotFound, "Not found"),
        ConflictException => (HttpStatusCode.Conflict, StatusCode.FailedPrecondition, "Not in a state that allows this"),
        QueueFullException => (HttpStatusCode.TooManyRequests, StatusCode.ResourceExhausted, "The job queue is full"),
        LimitExceededException => (HttpStatusCode.RequestEntityTooLarge, StatusCode.ResourceExhausted, "Over a configured limit"),
        // The installation's fault, not the request's: said plainly, with the file and the remedy.
        Salsa.Datasets.DataFileException => (HttpStatusCode.InternalServerError, StatusCode.Internal, "A shipped data file is missing or damaged"),
        // Validation of every kind: ClusteringInputException, ArgumentException and subclasses, bad
        // formats and bad data in uploads.
        ArgumentException or FormatException or InvalidDataException or Google.Protobuf.InvalidProtocolBufferException or System.Text.Json.JsonException
            => (HttpStatusCode.BadRequest, StatusCode.InvalidArgument, "Invalid request"),
        Microsoft.AspNetCore.Http.BadHttpRequestException bad when bad.StatusCode == 413
            => (HttpStatusCode.RequestEntityTooLarge, StatusCode.ResourceExhausted, "Request too large"),
        Microsoft.AspNetCore.Http.BadHttpRequestException => (HttpStatusCode.BadRequest, StatusCode.InvalidArgument, "Invalid request"),
        OperationCanceledException => (HttpStatusCode.ServiceUnavailable, StatusCode.Cancelled, "Cancelled"),
        _ => null,
    };

    /// <summary>The gRPC status of a service exception (see <see cref="Rpc.ServiceCallInterceptor"/>), or null when it is a fault.</summary>
    public static RpcException? ToRpcException(Exception exception) =>
        Classify(exception) is { } c ? new RpcException(new Status(c.Grpc, exception.Message), Trailers(exception)) : null;

    /// <summary>Trailers that go with a mapped status (the queue's retry hint).</summary>
    public static Metadata Trailers(Exception exception)
    {
        var trailers = new Metadata();
        if (exception is QueueFullException full)
        {
            trailers.Add("retry-after-ms", ((long)full.RetryAfter.TotalMilliseconds).ToString(System.Globalization.CultureInfo.InvariantCulture));
        }

        return trailers;
    }
}
