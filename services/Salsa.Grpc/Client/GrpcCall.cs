using System.Diagnostics;
using Google.Protobuf;

namespace Salsa.Grpc;

/// <summary>
/// One client call over one HTTP/2 stream: sends the request, reads response headers, messages
/// and trailers, and turns every way a call can end into exactly one <see cref="Status"/>.
/// </summary>
internal sealed partial class GrpcCall<TRequest, TResponse> : ICallState
    where TRequest : class, IMessage<TRequest>
    where TResponse : class, IMessage<TResponse>
{
    // Design: the call's own flow (the unary/client-streaming task, or the caller's MoveNext and
    // writes, one at a time each) sends and reads. Three other actors may act at any time: the
    // deadline timer, the caller's cancellation token and Dispose. They only record a reason
    // (first wins, interlocked), cancel the token and dispose the response, which makes a pending
    // send or read throw on the owning flow. The end of the call is published once by an
    // interlocked swap of an immutable outcome, so whoever ends it first (flow, Dispose) wins and
    // every later attempt is a no-op; nothing takes a lock, so nothing can deadlock.
    private const int NoReason = -1;
    private static readonly TimeSpan WriteFailureStatusWait = TimeSpan.FromSeconds(2);

    private readonly GrpcChannel _channel;
    private readonly Method<TRequest, TResponse> _method;
    private readonly CallOptions _options;
    private readonly CancellationTokenSource _cts = new();
    private CancellationTokenRegistration _callerCancellation;
    private ITimer? _deadlineTimer;
    private Activity? _activity;
    private HttpResponseMessage? _response;
    private ResponseMessageReader? _reader;
    private StreamingRequestContent? _requestContent;
    private Task? _started;
    private int _cancelReason = NoReason;
    private CallOutcome? _outcome;
    private readonly TaskCompletionSource _ended = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private TaskCompletionSource<Metadata>? _headersSource;
    private object? _headersOutcome;

    public GrpcCall(GrpcChannel channel, Method<TRequest, TResponse> method, CallOptions options)
    {
        ArgumentNullException.ThrowIfNull(method);
        _channel = channel;
        _method = method;
        _options = options;
    }

    public Task<TResponse> StartUnary(TRequest request) => RunSingleResponseAsync(CreateUnaryContent(request));

    public void StartServerStreaming(TRequest request) => _started = StartAsync(CreateUnaryContent(request));

    public Task<TResponse> StartClientStreaming(out StreamingRequestContent content)
    {
        content = _requestContent = new StreamingRequestContent();
        return RunSingleResponseAsync(content);
    }

    public void StartDuplexStreaming(out StreamingRequestContent content)
    {
        content = _requestContent = new StreamingRequestContent();
        _started = StartAsync(content);
    }

    public bool IsComplete => Volatile.Read(ref _outcome) is not null;

    public CancellationToken CancellationToken => _cts.Token;

    public int? MaxSendMessageSize => _channel.MaxSendMessageSize;

    public Task<Metadata> ResponseHeadersAsync
    {
        get
        {
            var source = Volatile.Read(ref _headersSource);
            if (source is null)
            {
                var created = new TaskCompletionSource<Metadata>(TaskCreationOptions.RunContinuationsAsynchronously);
                source = Interlocked.CompareExchange(ref _headersSource, created, null) ?? created;
                if (Volatile.Read(ref _headersOutcome) is { } outcome)
                {
                    ApplyHeaders(source, outcome);
                }
            }

            return source.Task;
        }
    }

    public Status GetStatus() =>
        Volatile.Read(ref _outcome)?.Status ?? throw new InvalidOperationException("Unable to get the status because the call is not complete.");

    public Metadata GetTrailers() =>
        Volatile.Read(ref _outcome)?.Trailers ?? throw new InvalidOperationException("Unable to get the trailers because the call is not complete.");

    /// <summary>Ends an unfinished call with CANCELLED (resetting its stream) and releases its resources.</summary>
    public void Dispose()
    {
        if (!IsComplete)
        {
            Cancel(StatusCode.Cancelled);
            Complete(CancelStatus(StatusCode.Cancelled), null);
        }
    }

    internal void Cancel(StatusCode reason)
    {
        if (IsComplete)
        {
            return;
        }

        Interlocked.CompareExchange(ref _cancelReason, (int)reason, NoReason);
        try
        {
            _cts.Cancel();
        }
        catch (AggregateException)
        {
            // A callback HttpClient registered failed; the stream is reset below either way.
        }

        Volatile.Read(ref _response)?.Dispose();
    }

    internal RpcException CreateException()
    {
        var outcome = Volatile.Read(ref _outcome)!;
        return new RpcException(outcome.Status, outcome.Trailers);
    }

    /// <summary>
    /// Why a write to the request stream failed, in gRPC terms. A server that ends a call early
    /// (e.g. RESOURCE_EXHAUSTED for an oversize message) resets the stream as it sends its status,
    /// so the write may fail before the status has been read: wait briefly for it, as the status
    /// says far more than "the stream broke".
    /// </summary>
    internal async Task<RpcException> CreateWriteFailureAsync(Exception exception)
    {
        if (Volatile.Read(ref _outcome) is null && Volatile.Read(ref _cancelReason) == NoReason)
        {
            try
            {
                await _ended.Task.WaitAsync(WriteFailureStatusWait).ConfigureAwait(false);
            }
            catch (TimeoutException)
            {
                // No status came: the connection itself failed.
            }
        }

        if (Volatile.Read(ref _outcome) is { Status.StatusCode: not StatusCode.OK })
        {
            return CreateException();
        }

        var reason = Volatile.Read(ref _cancelReason);
        if (reason != NoReason)
        {
            return new RpcException(CancelStatus((StatusCode)reason));
        }

        return new RpcException(new Status(StatusCode.Unavailable, $"Error writing the request message: {exception.Message}", exception));
    }

    /// <summary>Throws when writing is no longer possible because the call has ended.</summary>
    internal void ThrowIfComplete()
    {
        if (Volatile.Read(ref _outcome) is { } outcome)
        {
            throw outcome.Status.StatusCode == StatusCode.OK
                ? new InvalidOperationException("Can't write the message because the call is complete.")
                : CreateException();
        }
    }

    /// <summary>The next message of a streaming response; false at its end with OK, throws otherwise.</summary>
    internal async Task<(bool HasMessage, TResponse? Message)> MoveNextAsync(CancellationToken cancellationToken)
    {
        using var registration = cancellationToken.CanBeCanceled
            ? cancellationToken.UnsafeRegister(static s => ((GrpcCall<TRequest, TResponse>)s!).Cancel(StatusCode.Cancelled), this)
            : default;
        try
        {
            await _started!.ConfigureAwait(false);
            if (!IsComplete && await ReadNextAsync().ConfigureAwait(false) is { } message)
            {
                return (true, message);
            }
        }
        catch (Exception ex)
        {
            Complete(MapException(ex), null);
        }

        if (Volatile.Read(ref _outcome)!.Status.StatusCode == StatusCode.OK)
        {
            return (false, null);
        }

        throw CreateException();
    }
}
