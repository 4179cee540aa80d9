using System.Diagnostics;
using System.Net.Http.Headers;

namespace Salsa.Grpc;

/// <summary>How a call ends: one outcome, published once, whoever gets there first.</summary>
internal sealed partial class GrpcCall<TRequest, TResponse>
{
    /// <summary>Publishes the end of the call once and releases everything it held.</summary>
    private void Complete(Status status, HttpHeaders? trailers)
    {
        if (Interlocked.CompareExchange(ref _outcome, new CallOutcome(status, trailers), null) is not null)
        {
            return;
        }

        PublishHeaders(new RpcException(status));
        _callerCancellation.Dispose();
        _deadlineTimer?.Dispose();
        _requestContent?.Abort();
        if (status.StatusCode != StatusCode.OK)
        {
            try
            {
                _cts.Cancel();
            }
            catch (AggregateException)
            {
                // Only HttpClient's own callbacks are registered; the response is disposed below regardless.
            }
        }

        Volatile.Read(ref _response)?.Dispose();
        StopActivity();
        _ended.TrySetResult();
    }

    /// <summary>Ends the client activity once, whichever of Complete and StartAsync gets here last.</summary>
    private void StopActivity()
    {
        if (Interlocked.Exchange(ref _activity, null) is not { } activity)
        {
            return;
        }

        // Stop() makes the parent current on whichever flow runs this (Dispose, a timer); only
        // the call's own flow should see that change.
        var current = Activity.Current;
        GrpcDiagnostics.Complete(activity, Volatile.Read(ref _outcome)!.Status, isServer: false);
        if (current != activity)
        {
            Activity.Current = current;
        }
    }

    private Status MapException(Exception exception)
    {
        var reason = Volatile.Read(ref _cancelReason);
        if (reason != NoReason)
        {
            return CancelStatus((StatusCode)reason);
        }

        return exception switch
        {
            RpcException rpc => rpc.Status,
            HttpRequestException { InnerException: HttpProtocolException inner } => new Status(TrailerStatus.FromHttp2ErrorCode(inner.ErrorCode), $"The HTTP/2 stream was reset: {inner.Message}", inner),
            HttpProtocolException protocol => new Status(TrailerStatus.FromHttp2ErrorCode(protocol.ErrorCode), $"The HTTP/2 stream was reset: {protocol.Message}", protocol),
            HttpRequestException request => new Status(StatusCode.Unavailable, $"Error starting gRPC call. {request.GetType().Name}: {request.Message}", request),
            IOException io => new Status(StatusCode.Unavailable, $"Error reading the response. {io.GetType().Name}: {io.Message}", io),
            OperationCanceledException cancelled => new Status(StatusCode.Cancelled, "Call cancelled.", cancelled),
            ObjectDisposedException disposed => new Status(StatusCode.Unavailable, "The channel was disposed.", disposed),
            _ => new Status(StatusCode.Internal, $"Error in gRPC call. {exception.GetType().Name}: {exception.Message}", exception),
        };
    }

    private static Status CancelStatus(StatusCode reason) =>
        reason == StatusCode.DeadlineExceeded ? new Status(StatusCode.DeadlineExceeded, "Deadline Exceeded") : new Status(StatusCode.Cancelled, "Call cancelled by the client.");

    private void PublishHeaders(object outcome)
    {
        if (Interlocked.CompareExchange(ref _headersOutcome, outcome, null) is null && Volatile.Read(ref _headersSource) is { } source)
        {
            ApplyHeaders(source, outcome);
        }
    }

    private static void ApplyHeaders(TaskCompletionSource<Metadata> source, object outcome)
    {
        switch (outcome)
        {
            case Metadata metadata:
                source.TrySetResult(metadata);
                break;
            case HttpHeaders headers:
                source.TrySetResult(MetadataHeaders.ReadFrom(headers));
                break;
            case Exception exception:
                source.TrySetException(exception);
                break;
        }
    }

    /// <summary>The immutable end of a call; trailers are turned into metadata only when asked for.</summary>
    private sealed class CallOutcome(Status status, HttpHeaders? trailerSource)
    {
        private Metadata? _trailers;

        public Status Status { get; } = status;

        public Metadata Trailers
        {
            get
            {
                if (_trailers is null)
                {
                    Interlocked.CompareExchange(ref _trailers, trailerSource is null ? [] : MetadataHeaders.ReadFrom(trailerSource), null);
                }

                return _trailers;
            }
        }
    }
}
