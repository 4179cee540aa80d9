namespace Salsa.Grpc;

/// <summary>Reads the messages of a stream one at a time; one MoveNext may be pending at a time.</summary>
/// <remarks><c>await foreach (var m in reader)</c> works through <see cref="AsyncStreamReaderExtensions"/>.</remarks>
public interface IAsyncStreamReader<out T>
{
    /// <summary>The message read by the last successful <see cref="MoveNext"/>.</summary>
    T Current { get; }

    /// <summary>Reads the next message; false at the end of the stream.</summary>
    Task<bool> MoveNext(CancellationToken cancellationToken = default);
}

/// <summary>Writes the messages of a stream; one write may be pending at a time.</summary>
public interface IAsyncStreamWriter<in T>
{
    Task WriteAsync(T message, CancellationToken cancellationToken = default);
}

/// <summary>The response stream of a server-streaming or duplex service method.</summary>
public interface IServerStreamWriter<in T> : IAsyncStreamWriter<T>;

/// <summary>The request stream of a client-streaming or duplex call.</summary>
public interface IClientStreamWriter<in T> : IAsyncStreamWriter<T>
{
    /// <summary>Ends the request stream (half-close); the server sees the end of its reader.</summary>
    Task CompleteAsync();
}

public static class AsyncStreamReaderExtensions
{
    /// <summary>The rest of the stream as an async sequence.</summary>
    public static async IAsyncEnumerable<T> ReadAllAsync<T>(
        this IAsyncStreamReader<T> reader,
        [System.Runtime.CompilerServices.EnumeratorCancellation] CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(reader);
        while (await reader.MoveNext(cancellationToken).ConfigureAwait(false))
        {
            yield return reader.Current;
        }
    }

    /// <summary>Lets <c>await foreach</c> run directly over a reader.</summary>
    public static IAsyncEnumerator<T> GetAsyncEnumerator<T>(this IAsyncStreamReader<T> reader, CancellationToken cancellationToken = default) =>
        reader.ReadAllAsync(cancellationToken).GetAsyncEnumerator(cancellationToken);
}
