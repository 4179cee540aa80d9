using System.Buffers;
using System.IO.Pipelines;
using Google.Protobuf;

namespace Salsa.Grpc;

/// <summary>Reads length-prefixed request messages straight from Kestrel's request pipe.</summary>
internal static class RequestMessageReader
{
    /// <summary>The next message, or null at a clean end of the request stream.</summary>
    public static async ValueTask<T?> ReadNextAsync<T>(PipeReader reader, MessageParser<T> parser, int maxReceiveSize, CancellationToken cancellationToken)
        where T : class, IMessage<T>
    {
        while (true)
        {
            var result = await reader.ReadAsync(cancellationToken).ConfigureAwait(false);
            var buffer = result.Buffer;
            var frame = MessageFraming.TryRead(ref buffer, maxReceiveSize, out var payload, out var length);
            if (frame == FrameReadResult.Complete)
            {
                try
                {
                    return Parse(parser, payload);
                }
                finally
                {
                    // The payload is only valid until the pipe is advanced past it.
                    reader.AdvanceTo(buffer.Start);
                }
            }

            if (frame != FrameReadResult.NeedMoreData)
            {
                reader.AdvanceTo(buffer.Start);
                throw new RpcException(MessageFraming.FailureStatus(frame, length, maxReceiveSize));
            }

            if (result.IsCompleted)
            {
                reader.AdvanceTo(buffer.End);
                return buffer.IsEmpty ? null : throw new RpcException(MessageFraming.FailureStatus(frame, length, maxReceiveSize));
            }

            if (result.IsCanceled)
            {
                reader.AdvanceTo(buffer.Start);
                throw new OperationCanceledException("Reading the request was cancelled.");
            }

            reader.AdvanceTo(buffer.Start, buffer.End);
        }
    }

    /// <summary>Exactly one message, then the end of the stream (unary and server-streaming requests).</summary>
    public static async ValueTask<T> ReadSingleAsync<T>(PipeReader reader, MessageParser<T> parser, int maxReceiveSize, CancellationToken cancellationToken)
        where T : class, IMessage<T>
    {
        var message = await ReadNextAsync(reader, parser, maxReceiveSize, cancellationToken).ConfigureAwait(false)
            ?? throw new RpcException(new Status(StatusCode.Internal, "The request ended before a message was received."));
        if (await ReadNextAsync(reader, parser, maxReceiveSize, cancellationToken).ConfigureAwait(false) is not null)
        {
            throw new RpcException(new Status(StatusCode.Internal, "Additional data after the request message: this method takes exactly one."));
        }

        return message;
    }

    /// <summary>
    /// A frame that arrived whole but is not a valid message is the caller's fault, not a transport
    /// failure: INVALID_ARGUMENT with the parser's reason (grpc-dotnet says INTERNAL here; we
    /// prefer a code that tells the caller to fix its request rather than retry).
    /// </summary>
    private static T Parse<T>(MessageParser<T> parser, ReadOnlySequence<byte> payload)
        where T : class, IMessage<T>
    {
        try
        {
            return parser.ParseFrom(payload);
        }
        catch (InvalidProtocolBufferException ex)
        {
            throw new RpcException(new Status(StatusCode.InvalidArgument, $"The request message is not a valid {typeof(T).Name}: {ex.Message}"));
        }
    }
}
