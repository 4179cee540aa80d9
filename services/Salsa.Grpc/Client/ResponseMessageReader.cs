using System.Buffers;
using System.Buffers.Binary;
using Google.Protobuf;

namespace Salsa.Grpc;

/// <summary>Reads length-prefixed response messages from the HTTP/2 response body.</summary>
internal sealed class ResponseMessageReader(Stream stream, int? maxReceiveSize)
{
    // Design: only the call's reading flow uses this (the single-response task, or MoveNext,
    // which forbids overlap). The pooled buffer is rented and returned by that flow alone, at
    // the end of the body or on failure; a concurrent cancel only disposes the response, making
    // the pending read throw here, so the buffer is never returned while a read writes into it.
    private const int InitialBufferSize = 4096;
    private readonly int _maxReceiveSize = maxReceiveSize ?? int.MaxValue - GrpcProtocol.MessageHeaderSize;
    private byte[]? _buffer;
    private int _start;
    private int _end;

    /// <summary>The next message, or null at the end of the body.</summary>
    public async ValueTask<T?> ReadMessageAsync<T>(MessageParser<T> parser, CancellationToken cancellationToken)
        where T : class, IMessage<T>
    {
        try
        {
            _buffer ??= ArrayPool<byte>.Shared.Rent(InitialBufferSize);
            if (!await FillAsync(GrpcProtocol.MessageHeaderSize, cancellationToken).ConfigureAwait(false))
            {
                if (_end == _start)
                {
                    Release();
                    return null;
                }

                throw new RpcException(MessageFraming.FailureStatus(FrameReadResult.NeedMoreData, 0, _maxReceiveSize));
            }

            var flag = _buffer[_start];
            var length = BinaryPrimitives.ReadUInt32BigEndian(_buffer.AsSpan(_start + 1));
            var problem = flag switch
            {
                0 when length > (uint)_maxReceiveSize => FrameReadResult.TooLarge,
                0 => FrameReadResult.Complete,
                1 => FrameReadResult.Compressed,
                _ => FrameReadResult.InvalidFlag,
            };
            if (problem != FrameReadResult.Complete)
            {
                throw new RpcException(MessageFraming.FailureStatus(problem, length, _maxReceiveSize));
            }

            var frameLength = GrpcProtocol.MessageHeaderSize + (int)length;
            if (!await FillAsync(frameLength, cancellationToken).ConfigureAwait(false))
            {
                throw new RpcException(MessageFraming.FailureStatus(FrameReadResult.NeedMoreData, length, _maxReceiveSize));
            }

            var message = Parse(parser, _buffer.AsSpan(_start + GrpcProtocol.MessageHeaderSize, (int)length));
            _start += frameLength;
            return message;
        }
        catch
        {
            Release();
            throw;
        }
    }

    /// <summary>Ensures <paramref name="count"/> unread bytes are buffered; false if the body ends first.</summary>
    private async ValueTask<bool> FillAsync(int count, CancellationToken cancellationToken)
    {
        if (_end - _start >= count)
        {
            return true;
        }

        var buffer = _buffer!;
        if (buffer.Length - _start < count)
        {
            var target = buffer.Length >= count ? buffer : ArrayPool<byte>.Shared.Rent(Math.Max(count, buffer.Length * 2));
            buffer.AsSpan(_start, _end - _start).CopyTo(target);
            if (!ReferenceEquals(target, buffer))
            {
                ArrayPool<byte>.Shared.Return(buffer);
                _buffer = buffer = target;
            }

            _end -= _start;
            _start = 0;
        }

        while (_end - _start < count)
        {
            var read = await stream.ReadAsync(buffer.AsMemory(_end), cancellationToken).ConfigureAwait(false);
            if (read == 0)
            {
                return false;
            }

            _end += read;
        }

        return true;
    }

    private static T Parse<T>(MessageParser<T> parser, ReadOnlySpan<byte> payload)
        where T : class, IMessage<T>
    {
        try
        {
            return parser.ParseFrom(payload);
        }
        catch (InvalidProtocolBufferException ex)
        {
            throw new RpcException(new Status(StatusCode.Internal, $"Failed to deserialize the response message: {ex.Message}", ex));
        }
    }

    private void Release()
    {
        if (_buffer is { } buffer)
        {
            _buffer = null;
            _start = _end = 0;
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }
}
