using System.Buffers;
using System.Buffers.Binary;
using Google.Protobuf;

namespace Salsa.Grpc;

internal enum FrameReadResult
{
    Complete,
    NeedMoreData,
    TooLarge,
    Compressed,
    InvalidFlag,
}

/// <summary>Length-prefixed messages: 1-byte compressed flag, 4-byte big-endian length, payload.</summary>
internal static class MessageFraming
{
    // Below this the frame is serialized into one span of the writer's current segment; above
    // it the payload streams through IBufferWriter so no segment has to hold the whole message.
    private const int ContiguousWriteLimit = 16 * 1024;

    /// <summary>Frames <paramref name="message"/> into <paramref name="writer"/>; size checked before any byte is written.</summary>
    public static void Write(IBufferWriter<byte> writer, IMessage message, int? maxSendSize)
    {
        var size = message.CalculateSize();
        CheckSendSize(size, maxSendSize);
        if (size <= ContiguousWriteLimit)
        {
            var span = writer.GetSpan(GrpcProtocol.MessageHeaderSize + size);
            WriteHeader(span, size);
            message.WriteTo(span.Slice(GrpcProtocol.MessageHeaderSize, size));
            writer.Advance(GrpcProtocol.MessageHeaderSize + size);
        }
        else
        {
            WriteHeader(writer.GetSpan(GrpcProtocol.MessageHeaderSize), size);
            writer.Advance(GrpcProtocol.MessageHeaderSize);
            message.WriteTo(writer);
        }
    }

    public static void CheckSendSize(int size, int? maxSendSize)
    {
        if (size > maxSendSize)
        {
            throw new RpcException(new Status(StatusCode.ResourceExhausted, $"Sending message exceeds the maximum configured message size ({size} > {maxSendSize} bytes)."));
        }
    }

    public static void WriteHeader(Span<byte> destination, int length)
    {
        destination[0] = 0;
        BinaryPrimitives.WriteUInt32BigEndian(destination[1..], (uint)length);
    }

    /// <summary>
    /// Takes one frame off the front of <paramref name="buffer"/>. The length is checked against
    /// the limit as soon as the header is in, so an oversized message is refused before it is buffered.
    /// </summary>
    public static FrameReadResult TryRead(ref ReadOnlySequence<byte> buffer, int maxReceiveSize, out ReadOnlySequence<byte> payload, out long length)
    {
        payload = default;
        length = 0;
        if (buffer.Length < GrpcProtocol.MessageHeaderSize)
        {
            return FrameReadResult.NeedMoreData;
        }

        Span<byte> header = stackalloc byte[GrpcProtocol.MessageHeaderSize];
        buffer.Slice(0, GrpcProtocol.MessageHeaderSize).CopyTo(header);
        length = BinaryPrimitives.ReadUInt32BigEndian(header[1..]);
        if (header[0] > 1)
        {
            return FrameReadResult.InvalidFlag;
        }

        if (header[0] == 1)
        {
            return FrameReadResult.Compressed;
        }

        if (length > maxReceiveSize)
        {
            return FrameReadResult.TooLarge;
        }

        if (buffer.Length < GrpcProtocol.MessageHeaderSize + length)
        {
            return FrameReadResult.NeedMoreData;
        }

        payload = buffer.Slice(GrpcProtocol.MessageHeaderSize, length);
        buffer = buffer.Slice(payload.End);
        return FrameReadResult.Complete;
    }

    /// <summary>The status a receiver reports for a frame it cannot take.</summary>
    public static Status FailureStatus(FrameReadResult result, long length, int maxReceiveSize) => result switch
    {
        FrameReadResult.TooLarge => new Status(StatusCode.ResourceExhausted, $"Received message exceeds the maximum configured message size ({length} > {maxReceiveSize} bytes)."),
        // PROTOCOL-HTTP2.md: a compressed message without a negotiated encoding is INTERNAL.
        FrameReadResult.Compressed => new Status(StatusCode.Internal, "Received a compressed message but no grpc-encoding was negotiated (only identity is supported)."),
        FrameReadResult.InvalidFlag => new Status(StatusCode.Internal, "Received a message with an invalid compressed flag (not 0 or 1)."),
        _ => new Status(StatusCode.Internal, "Incomplete message: the stream ended inside a length-prefixed message."),
    };
}
