using System.Runtime.CompilerServices;

namespace Salsa.Grpc;

/// <summary>What every call object exposes about its call, whatever its message types.</summary>
internal interface ICallState : IDisposable
{
    Task<Metadata> ResponseHeadersAsync { get; }

    Status GetStatus();

    Metadata GetTrailers();
}

/// <summary>The part of a call object that does not depend on its message types.</summary>
public abstract class AsyncCall : IDisposable
{
    private readonly ICallState _call;

    private protected AsyncCall(ICallState call)
    {
        _call = call;
    }

    public Task<Metadata> ResponseHeadersAsync => _call.ResponseHeadersAsync;

    /// <summary>The final status; throws while the call is in progress.</summary>
    public Status GetStatus() => _call.GetStatus();

    /// <summary>The trailers; throws while the call is in progress.</summary>
    public Metadata GetTrailers() => _call.GetTrailers();

    /// <summary>Cancels the call if it is still in progress.</summary>
    public void Dispose()
    {
        _call.Dispose();
        GC.SuppressFinalize(this);
    }
}

/// <summary>A unary call in flight. Await it (or <see cref="ResponseAsync"/>) for the response.</summary>
public sealed class AsyncUnaryCall<TResponse> : AsyncCall
{
    internal AsyncUnaryCall(Task<TResponse> responseAsync, ICallState call)
        : base(call)
    {
        ResponseAsync = responseAsync;
    }

    /// <summary>The response; faults with <see cref="RpcException"/> for any status but OK.</summary>
    public Task<TResponse> ResponseAsync { get; }

    public TaskAwaiter<TResponse> GetAwaiter() => ResponseAsync.GetAwaiter();

    public ConfiguredTaskAwaitable<TResponse> ConfigureAwait(bool continueOnCapturedContext) => ResponseAsync.ConfigureAwait(continueOnCapturedContext);
}

public sealed class AsyncServerStreamingCall<TResponse> : AsyncCall
{
    internal AsyncServerStreamingCall(IAsyncStreamReader<TResponse> responseStream, ICallState call)
        : base(call)
    {
        ResponseStream = responseStream;
    }

    /// <summary>The responses; MoveNext returns false at an OK end and throws <see cref="RpcException"/> otherwise.</summary>
    public IAsyncStreamReader<TResponse> ResponseStream { get; }
}

public sealed class AsyncClientStreamingCall<TRequest, TResponse> : AsyncCall
{
    internal AsyncClientStreamingCall(IClientStreamWriter<TRequest> requestStream, Task<TResponse> responseAsync, ICallState call)
        : base(call)
    {
        RequestStream = requestStream;
        ResponseAsync = responseAsync;
    }

    /// <summary>Write the requests, then <see cref="IClientStreamWriter{T}.CompleteAsync"/>.</summary>
    public IClientStreamWriter<TRequest> RequestStream { get; }

    public Task<TResponse> ResponseAsync { get; }

    public TaskAwaiter<TResponse> GetAwaiter() => ResponseAsync.GetAwaiter();

    public ConfiguredTaskAwaitable<TResponse> ConfigureAwait(bool continueOnCapturedContext) => ResponseAsync.ConfigureAwait(continueOnCapturedContext);
}

public sealed class AsyncDuplexStreamingCall<TRequest, TResponse> : AsyncCall
{
    internal AsyncDuplexStreamingCall(IClientStreamWriter<TRequest> requestStream, IAsyncStreamReader<TResponse> responseStream, ICallState call)
        : base(call)
    {
        RequestStream = requestStream;
        ResponseStream = responseStream;
    }

    public IClientStreamWriter<TRequest> RequestStream { get; }

    public IAsyncStreamReader<TResponse> ResponseStream { get; }
}
