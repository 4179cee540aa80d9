using System.Diagnostics;
using System.Net;

namespace Salsa.Grpc;

internal sealed partial class GrpcCall<TRequest, TResponse>
{
    private static readonly Metadata EmptyHeaders = [];

    private UnaryRequestContent? CreateUnaryContent(TRequest request)
    {
        var size = request.CalculateSize();
        if (size > _channel.MaxSendMessageSize)
        {
            Complete(new Status(StatusCode.ResourceExhausted, $"Sending message exceeds the maximum configured message size ({size} > {_channel.MaxSendMessageSize} bytes)."), null);
            return null;
        }

        return new UnaryRequestContent(request, size);
    }

    /// <summary>Unary and client-streaming: exactly one response message, then an OK status.</summary>
    private async Task<TResponse> RunSingleResponseAsync(HttpContent? content)
    {
        TResponse? message = null;
        try
        {
            await StartAsync(content).ConfigureAwait(false);
            if (!IsComplete)
            {
                message = await ReadNextAsync().ConfigureAwait(false);
                if (message is not null && await ReadNextAsync().ConfigureAwait(false) is not null)
                {
                    throw new RpcException(new Status(StatusCode.Internal, "The response has more than one message for a method that returns one."));
                }
            }
        }
        catch (Exception ex)
        {
            Complete(MapException(ex), null);
        }

        var status = Volatile.Read(ref _outcome)!.Status;
        if (status.StatusCode == StatusCode.OK)
        {
            return message ?? throw new RpcException(new Status(StatusCode.Internal, "The server ended the call with OK but sent no response message."), GetTrailers());
        }

        throw CreateException();
    }

    /// <summary>Sends the request and takes the response headers; ends the call on any failure, never throws.</summary>
    private async Task StartAsync(HttpContent? content)
    {
        if (content is null || IsComplete)
        {
            return;
        }

        try
        {
            if (!ArmCancellation())
            {
                return;
            }

            if (GrpcDiagnostics.Source.HasListeners())
            {
                // Current for the rest of this flow, so HttpClient's own activity nests under it
                // and traceparent carries its span id.
                var activity = GrpcDiagnostics.Source.StartActivity(_method.ActivityName, ActivityKind.Client);
                if (activity is not null)
                {
                    GrpcDiagnostics.SetRpcTags(activity, _method.ServiceName, _method.Name);
                    Volatile.Write(ref _activity, activity);
                }
            }

            var response = await _channel.Invoker.SendAsync(CreateRequest(content), _cts.Token).ConfigureAwait(false);
            Volatile.Write(ref _response, response);
            if (IsComplete)
            {
                response.Dispose(); // ended (cancelled, disposed) while the headers were on their way
                return;
            }

            if (ResponseHeaderStatus(response) is { } status)
            {
                PublishHeaders(EmptyHeaders);
                Complete(status, response.Headers);
                return;
            }

            PublishHeaders(response.Headers);
            var body = await response.Content.ReadAsStreamAsync(_cts.Token).ConfigureAwait(false);
            _reader = new ResponseMessageReader(body, _channel.MaxReceiveMessageSize);
        }
        catch (Exception ex)
        {
            Complete(MapException(ex), null);
        }
        finally
        {
            // The call may have ended (Dispose, a timer) before the activity was published above.
            if (IsComplete)
            {
                StopActivity();
            }
        }
    }

    /// <summary>Registers the caller's token and starts the deadline timer; false when the call already ended.</summary>
    private bool ArmCancellation()
    {
        if (_options.CancellationToken.CanBeCanceled)
        {
            _callerCancellation = _options.CancellationToken.UnsafeRegister(static s => ((GrpcCall<TRequest, TResponse>)s!).Cancel(StatusCode.Cancelled), this);
        }

        if (_options.Deadline is { } deadline && deadline != DateTime.MaxValue)
        {
            var timeout = deadline.ToUniversalTime() - DateTime.UtcNow;
            if (timeout <= TimeSpan.Zero)
            {
                Complete(CancelStatus(StatusCode.DeadlineExceeded), null);
                return false;
            }

            _deadlineTimer = TimeProvider.System.CreateTimer(
                static s => ((GrpcCall<TRequest, TResponse>)s!).Cancel(StatusCode.DeadlineExceeded), this, timeout, Timeout.InfiniteTimeSpan);
        }

        return !IsComplete;
    }

    private HttpRequestMessage CreateRequest(HttpContent content)
    {
        var request = new HttpRequestMessage(HttpMethod.Post, _channel.GetRequestUri(_method.FullName))
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Content = content,
        };
        var headers = request.Headers;
        headers.TryAddWithoutValidation(GrpcProtocol.TeHeader, GrpcProtocol.TeTrailers);
        headers.TryAddWithoutValidation("user-agent", GrpcProtocol.UserAgent);
        if (_options.Deadline is { } deadline && deadline != DateTime.MaxValue)
        {
            headers.TryAddWithoutValidation(GrpcProtocol.TimeoutHeader, GrpcTimeout.Format(deadline.ToUniversalTime() - DateTime.UtcNow));
        }

        if (_options.Headers is { Count: > 0 } metadata)
        {
            MetadataHeaders.WriteTo(headers, metadata);
        }

        return request;
    }

    /// <summary>The next response message; at the end of the body, the call ends with the trailers' status and null is returned.</summary>
    private async ValueTask<TResponse?> ReadNextAsync()
    {
        var message = await _reader!.ReadMessageAsync(_method.ResponseParser, _cts.Token).ConfigureAwait(false);
        if (message is null)
        {
            var trailers = _response!.TrailingHeaders;
            Complete(TrailerStatus.Read(trailers), trailers);
        }

        return message;
    }

    /// <summary>A status when the response headers already end the call (HTTP error, not gRPC, or trailers-only).</summary>
    private static Status? ResponseHeaderStatus(HttpResponseMessage response)
    {
        if (response.StatusCode != HttpStatusCode.OK)
        {
            return new Status(TrailerStatus.FromHttpStatus(response.StatusCode), $"Bad gRPC response. HTTP status code: {(int)response.StatusCode}.");
        }

        var contentType = response.Content.Headers.NonValidated.TryGetValues("Content-Type", out var values) ? values.ToString() : null;
        if (!GrpcProtocol.IsGrpcContentType(contentType))
        {
            return new Status(StatusCode.Internal, $"Bad gRPC response. Invalid content-type value: {contentType ?? "(none)"}.");
        }

        return response.Headers.NonValidated.Contains(GrpcProtocol.StatusTrailer) ? TrailerStatus.Read(response.Headers) : null;
    }
}
