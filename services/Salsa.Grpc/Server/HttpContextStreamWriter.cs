using System.IO.Pipelines;
using Google.Protobuf;

namespace Salsa.Grpc;

/// <summary>The response stream of a server-streaming or duplex method: one flushed frame per message.</summary>
internal sealed class HttpContextStreamWriter<T>(PipeWriter writer, ServerCallContext context, int? maxSendSize) : IServerStreamWriter<T>
    where T : class, IMessage<T>
{
    // Design: the service method writes (grpc's contract: one write pending at a time, enforced
    // with an interlocked flag). The call handler sets _completed once the method has returned, so
    // a write from a task the method forgot about fails instead of racing the trailers. Kestrel's
    // pipe provides back-pressure through FlushAsync; nothing here blocks on anything else.
    private int _writing;
    private volatile bool _completed;

    public Task WriteAsync(T message, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(message);
        if (_completed)
        {
            throw new InvalidOperationException("Can't write the message because the call is complete.");
        }

        if (Interlocked.Exchange(ref _writing, 1) == 1)
        {
            throw new InvalidOperationException("Can't write the message because the previous write is still in progress.");
        }

        ValueTask<FlushResult> flush;
        try
        {
            context.CancellationToken.ThrowIfCancellationRequested();
            context.ResponseStarted = true;
            MessageFraming.Write(writer, message, maxSendSize);
            flush = writer.FlushAsync(cancellationToken.CanBeCanceled ? cancellationToken : context.CancellationToken);
        }
        catch
        {
            Volatile.Write(ref _writing, 0);
            throw;
        }

        if (flush.IsCompletedSuccessfully)
        {
            Volatile.Write(ref _writing, 0);
            CheckFlush(flush.Result);
            return Task.CompletedTask;
        }

        return AwaitFlushAsync(flush);
    }

    internal void Complete() => _completed = true;

    private async Task AwaitFlushAsync(ValueTask<FlushResult> flush)
    {
        try
        {
            CheckFlush(await flush.ConfigureAwait(false));
        }
        finally
        {
            Volatile.Write(ref _writing, 0);
        }
    }

    // A completed or cancelled flush means the caller is gone; say so through the call's token
    // so the call handler reports CANCELLED or DEADLINE_EXCEEDED rather than an unknown error.
    private void CheckFlush(FlushResult result)
    {
        if (result.IsCanceled || result.IsCompleted)
        {
            context.CancellationToken.ThrowIfCancellationRequested();
            throw new OperationCanceledException("The response stream is closed.");
        }
    }
}
