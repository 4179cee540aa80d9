using System.Data.Common;
using System.Globalization;
using System.Net;
using System.Text.Json;
using Google.Protobuf;
using Grpc.Core;
using Microsoft.AspNetCore.Http;

namespace Salsa.Hosting.Errors;

/// <summary>
/// One mapping from the services' exceptions to what callers see, for both faces: an HTTP status
/// with a ProblemDetails body, and a gRPC status. Anything not listed is a server fault (500 /
/// UNKNOWN); bad input never is.
/// </summary>
public static class ServiceErrors
{
    /// <summary>How long a caller is asked to wait when the store is briefly out of reach.</summary>
    public static readonly TimeSpan StoreRetryAfter = TimeSpan.FromSeconds(5);

    public static (HttpStatusCode Http, StatusCode Grpc, string Title)? Classify(Exception exception) => exception switch
    {
        NotFoundException => (HttpStatusCode.NotFound, StatusCode.NotFound, "Not found"),
        ConflictException => (HttpStatusCode.Conflict, StatusCode.FailedPrecondition, "Not in a state that allows this"),
        QueueFullException => (HttpStatusCode.TooManyRequests, StatusCode.ResourceExhausted, "The job queue is full"),
        // Retrying will not help until the tenant deletes something: no Retry-After.
        Salsa.Store.QuotaExceededException => (HttpStatusCode.Forbidden, StatusCode.ResourceExhausted, "Over the tenant's quota"),
        LimitExceededException or Salsa.DataFiles.FileTooLargeException => (HttpStatusCode.RequestEntityTooLarge, StatusCode.ResourceExhausted, "Over a configured limit"),
        // The store restarting or briefly out of reach (reads have ridden it out for half a minute
        // already; writes are not asked again): the caller retries, nothing is lost or half-done.
        DbException { IsTransient: true } => (HttpStatusCode.ServiceUnavailable, StatusCode.Unavailable, "The store is unreachable"),
        // The installation's fault, not the request's: said plainly, with the file and the remedy.
        Salsa.DataFiles.DataFileException => (HttpStatusCode.InternalServerError, StatusCode.Internal, "A shipped data file is missing or damaged"),
        // Validation of every kind: ClusteringInputException, ArgumentException and subclasses, bad
        // formats and bad data in uploads.
        ArgumentException or FormatException or InvalidDataException or InvalidProtocolBufferException or JsonException
            => (HttpStatusCode.BadRequest, StatusCode.InvalidArgument, "Invalid request"),
        BadHttpRequestException bad when bad.StatusCode == 413
            => (HttpStatusCode.RequestEntityTooLarge, StatusCode.ResourceExhausted, "Request too large"),
        BadHttpRequestException => (HttpStatusCode.BadRequest, StatusCode.InvalidArgument, "Invalid request"),
        OperationCanceledException => (HttpStatusCode.ServiceUnavailable, StatusCode.Cancelled, "Cancelled"),
        // A service's answer passed on (the gateway forwarding an upload): the caller's mistake stays
        // the caller's; anything else is a fault.
        RpcException { StatusCode: StatusCode.InvalidArgument } => (HttpStatusCode.BadRequest, StatusCode.InvalidArgument, "Invalid request"),
        RpcException { StatusCode: StatusCode.NotFound } => (HttpStatusCode.NotFound, StatusCode.NotFound, "Not found"),
        RpcException { StatusCode: StatusCode.ResourceExhausted } rpc when rpc.Trailers.GetValue(QuotaTrailer) is not null
            => (HttpStatusCode.Forbidden, StatusCode.ResourceExhausted, "Over the tenant's quota"),
        RpcException { StatusCode: StatusCode.ResourceExhausted } => (HttpStatusCode.RequestEntityTooLarge, StatusCode.ResourceExhausted, "Over a configured limit"),
        RpcException { StatusCode: StatusCode.FailedPrecondition } => (HttpStatusCode.Conflict, StatusCode.FailedPrecondition, "Not in a state that allows this"),
        // The service that holds what was asked for (a run's file with its job) is down or slow: try again later.
        RpcException { StatusCode: StatusCode.Unavailable or StatusCode.DeadlineExceeded } => (HttpStatusCode.ServiceUnavailable, StatusCode.Unavailable, "A service is unreachable"),
        _ => null,
    };

    /// <summary>The gRPC status of a service exception (see <see cref="Rpc.ServiceCallInterceptor"/>), or null when it is a fault.</summary>
    public static RpcException? ToRpcException(Exception exception) =>
        Classify(exception) is { } c ? new RpcException(new Status(c.Grpc, Message(exception)), Trailers(exception)) : null;

    /// <summary>What a caller is told: the exception's message, or for the store's own failures what to do (never the driver's words).</summary>
    public static string Message(Exception exception)
    {
        ArgumentNullException.ThrowIfNull(exception);
        return exception switch
        {
            DbException => string.Create(CultureInfo.InvariantCulture, $"The store did not answer (it may be restarting); retry after {StoreRetryAfter.TotalSeconds:0} s."),
            RpcException rpc => rpc.Status.Detail,
            Salsa.DataFiles.DataFileException data => data.Detail,
            _ => exception.Message,
        };
    }

    /// <summary>When a refused caller may try again: the queue's hint, or the store's; null when retrying would not help.</summary>
    public static TimeSpan? RetryAfter(Exception exception) => exception switch
    {
        QueueFullException full => full.RetryAfter,
        DbException { IsTransient: true } => StoreRetryAfter,
        _ => null,
    };

    /// <summary>The trailer that tells a quota refused a call from a limit exceeded (both RESOURCE_EXHAUSTED without a retry hint).</summary>
    public const string QuotaTrailer = "salsa-quota-exceeded";

    /// <summary>Trailers that go with a mapped status (the retry hint; the quota's mark, passed on when forwarded).</summary>
    public static Metadata Trailers(Exception exception)
    {
        var trailers = new Metadata();
        if (exception is Salsa.Store.QuotaExceededException || (exception is RpcException forwarded && forwarded.Trailers.GetValue(QuotaTrailer) is not null))
        {
            trailers.Add(QuotaTrailer, "1");
        }

        if (RetryAfter(exception) is { } retry)
        {
            trailers.Add("retry-after-ms", ((long)retry.TotalMilliseconds).ToString(CultureInfo.InvariantCulture));
        }

        return trailers;
    }
}
