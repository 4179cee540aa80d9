using System.Buffers;
using Google.Protobuf;

namespace Salsa.Grpc;

/// <summary>The response stream of a server-streaming or duplex call.</summary>
internal sealed class ClientResponseStream<TRequest, TResponse>(GrpcCall<TRequest, TResponse> call) : IAsyncStreamReader<TResponse>
    where TRequest : class, IMessage<TRequest>
    where TResponse : class, IMessage<TResponse>
{
    // Design: the caller reads; one MoveNext at a time (grpc's contract), enforced by an
    // interlocked flag because overlapping reads would interleave bytes of one HTTP/2 stream.
    private int _reading;

    public TResponse Current { get; private set; } = null!;

    public async Task<bool> MoveNext(CancellationToken cancellationToken = default)
    {
        if (Interlocked.Exchange(ref _reading, 1) == 1)
        {
            throw new InvalidOperationException("Can't read the next message because the previous read is still in progress.");
        }

        try
        {
            var (hasMessage, message) = await call.MoveNextAsync(cancellationToken).ConfigureAwait(false);
            if (hasMessage)
            {
                Current = message!;
            }

            return hasMessage;
        }
        finally
        {
            Volatile.Write(ref _reading, 0);
        }
    }
}

/// <summary>The request stream of a client-streaming or duplex call.</summary>
internal sealed class ClientRequestStream<TRequest, TResponse>(GrpcCall<TRequest, TResponse> call, StreamingRequestContent content) : IClientStreamWriter<TRequest>
    where TRequest : class, IMessage<TRequest>
    where TResponse : class, IMessage<TResponse>
{
    // Design: the caller writes, one write at a time (grpc's contract, enforced by an interlocked
    // flag, since HTTP/2 DATA frames of two writes must not interleave). The HTTP stream comes from
    // HttpClient's send path through StreamingRequestContent; if the call ends first, the content
    // is aborted and the wait for the stream fails instead of hanging.
    private int _writing;
    private volatile bool _completed;

    public async Task WriteAsync(TRequest message, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(message);
        call.ThrowIfComplete();
        if (_completed)
        {
            throw new InvalidOperationException("Can't write the message because the request stream is complete.");
        }

        if (Interlocked.Exchange(ref _writing, 1) == 1)
        {
            throw new InvalidOperationException("Can't write the message because the previous write is still in progress.");
        }

        try
        {
            var size = message.CalculateSize();
            MessageFraming.CheckSendSize(size, call.MaxSendMessageSize);
            var length = GrpcProtocol.MessageHeaderSize + size;
            var buffer = ArrayPool<byte>.Shared.Rent(length);
            try
            {
                MessageFraming.WriteHeader(buffer, size);
                message.WriteTo(buffer.AsSpan(GrpcProtocol.MessageHeaderSize, size));
                var token = cancellationToken.CanBeCanceled ? cancellationToken : call.CancellationToken;
                var stream = await content.Stream.WaitAsync(token).ConfigureAwait(false);
                await stream.WriteAsync(buffer.AsMemory(0, length), token).ConfigureAwait(false);
                await stream.FlushAsync(token).ConfigureAwait(false);
            }
            finally
            {
                ArrayPool<byte>.Shared.Return(buffer);
            }
        }
        catch (Exception ex) when (ex is not RpcException)
        {
            throw await call.CreateWriteFailureAsync(ex).ConfigureAwait(false);
        }
        finally
        {
            Volatile.Write(ref _writing, 0);
        }
    }

    public Task CompleteAsync()
    {
        _completed = true;
        content.Complete();
        return Task.CompletedTask;
    }
}
