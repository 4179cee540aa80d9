using System.IO.Pipelines;
using Google.Protobuf;

namespace Salsa.Grpc;

/// <summary>The request stream of a client-streaming or duplex method.</summary>
internal sealed class HttpContextStreamReader<T>(PipeReader reader, MessageParser<T> parser, int maxReceiveSize, ServerCallContext context)
    : IAsyncStreamReader<T>
    where T : class, IMessage<T>
{
    // Design: the service method is the only reader (grpc's contract: one MoveNext at a time,
    // checked with an interlocked flag so misuse fails loudly instead of corrupting the pipe).
    // Current is written and read on that same flow. Cancellation comes from the call's token.
    private int _reading;
    private bool _ended;

    public T Current { get; private set; } = null!;

    public Task<bool> MoveNext(CancellationToken cancellationToken = default)
    {
        if (Interlocked.Exchange(ref _reading, 1) == 1)
        {
            throw new InvalidOperationException("Can't read the next message because the previous read is still in progress.");
        }

        if (_ended)
        {
            Volatile.Write(ref _reading, 0);
            return FalseTask;
        }

        var next = ReadNextAsync(cancellationToken);
        if (next.IsCompletedSuccessfully)
        {
            var more = Accept(next.Result);
            Volatile.Write(ref _reading, 0);
            return more ? TrueTask : FalseTask;
        }

        return AwaitNextAsync(next);
    }

    private static readonly Task<bool> TrueTask = Task.FromResult(true);
    private static readonly Task<bool> FalseTask = Task.FromResult(false);

    private async Task<bool> AwaitNextAsync(ValueTask<T?> next)
    {
        try
        {
            return Accept(await next.ConfigureAwait(false));
        }
        finally
        {
            Volatile.Write(ref _reading, 0);
        }
    }

    private ValueTask<T?> ReadNextAsync(CancellationToken cancellationToken)
    {
        try
        {
            context.CancellationToken.ThrowIfCancellationRequested();
            if (!cancellationToken.CanBeCanceled || cancellationToken == context.CancellationToken)
            {
                return RequestMessageReader.ReadNextAsync(reader, parser, maxReceiveSize, context.CancellationToken);
            }

            return ReadLinkedAsync(cancellationToken);
        }
        catch
        {
            Volatile.Write(ref _reading, 0);
            throw;
        }
    }

    private async ValueTask<T?> ReadLinkedAsync(CancellationToken cancellationToken)
    {
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, context.CancellationToken);
        return await RequestMessageReader.ReadNextAsync(reader, parser, maxReceiveSize, linked.Token).ConfigureAwait(false);
    }

    private bool Accept(T? message)
    {
        if (message is null)
        {
            _ended = true;
            return false;
        }

        Current = message;
        return true;
    }
}
