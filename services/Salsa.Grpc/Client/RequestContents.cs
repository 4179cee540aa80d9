using System.Buffers;
using System.Net;
using Google.Protobuf;

namespace Salsa.Grpc;

/// <summary>One framed message with a known length, serialized straight into a pooled buffer.</summary>
internal sealed class UnaryRequestContent : HttpContent
{
    private readonly IMessage _message;
    private readonly int _size;

    public UnaryRequestContent(IMessage message, int size)
    {
        _message = message;
        _size = size;
        Headers.TryAddWithoutValidation("Content-Type", GrpcProtocol.ContentType);
    }

    protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) =>
        SerializeToStreamAsync(stream, context, CancellationToken.None);

    protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken)
    {
        var length = GrpcProtocol.MessageHeaderSize + _size;
        var buffer = ArrayPool<byte>.Shared.Rent(length);
        MessageFraming.WriteHeader(buffer, _size);
        _message.WriteTo(buffer.AsSpan(GrpcProtocol.MessageHeaderSize, _size));
        var write = stream.WriteAsync(buffer.AsMemory(0, length), cancellationToken);
        if (write.IsCompletedSuccessfully)
        {
            ArrayPool<byte>.Shared.Return(buffer);
            return Task.CompletedTask;
        }

        return AwaitAndReturnAsync(write, buffer);
    }

    protected override bool TryComputeLength(out long length)
    {
        length = GrpcProtocol.MessageHeaderSize + _size;
        return true;
    }

    private static async Task AwaitAndReturnAsync(ValueTask write, byte[] buffer)
    {
        try
        {
            await write.ConfigureAwait(false);
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }
}

/// <summary>A request body written by the caller over time (client-streaming and duplex calls).</summary>
internal sealed class StreamingRequestContent : HttpContent
{
    // Design: HttpClient's send path calls SerializeToStreamAsync once; it publishes the HTTP/2
    // request stream through _stream and then waits on _done. The caller's writer awaits _stream
    // and writes; CompleteAsync completes _done (END_STREAM follows). The call aborts both when it
    // ends and HttpClient's token aborts them when the response finishes first, so neither side
    // waits past the call. Both sources run continuations asynchronously, so neither side ever
    // runs the other's code inline.
    private readonly TaskCompletionSource<Stream> _stream = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public StreamingRequestContent() => Headers.TryAddWithoutValidation("Content-Type", GrpcProtocol.ContentType);

    public Task<Stream> Stream => _stream.Task;

    public void Complete() => _done.TrySetResult();

    public void Abort()
    {
        _stream.TrySetCanceled();
        _done.TrySetCanceled();
    }

    protected override Task SerializeToStreamAsync(Stream stream, TransportContext? context) =>
        SerializeToStreamAsync(stream, context, CancellationToken.None);

    protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context, CancellationToken cancellationToken)
    {
        _stream.TrySetResult(stream);
        using var registration = cancellationToken.UnsafeRegister(static s => ((StreamingRequestContent)s!).Abort(), this);
        await _done.Task.ConfigureAwait(false);
    }

    protected override bool TryComputeLength(out long length)
    {
        length = -1;
        return false;
    }
}
