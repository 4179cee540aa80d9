namespace Salsa.Grpc;

/// <summary>
/// A call ended with a status other than OK. Thrown by clients for non-OK responses, and thrown
/// by service methods to choose the status and trailers the caller receives.
/// </summary>
public sealed class RpcException : Exception
{
    public RpcException()
        : this(new Status(StatusCode.Unknown, ""))
    {
    }

    public RpcException(string message)
        : this(new Status(StatusCode.Unknown, message), message)
    {
    }

    public RpcException(string message, Exception innerException)
        : base(message, innerException)
    {
        Status = new Status(StatusCode.Unknown, message, innerException);
        Trailers = new Metadata();
    }

    public RpcException(Status status)
        : this(status, new Metadata(), status.ToString())
    {
    }

    public RpcException(Status status, string message)
        : this(status, new Metadata(), message)
    {
    }

    public RpcException(Status status, Metadata trailers)
        : this(status, trailers, status.ToString())
    {
    }

    public RpcException(Status status, Metadata trailers, string message)
        : base(message, status.DebugException)
    {
        ArgumentNullException.ThrowIfNull(trailers);
        Status = status;
        Trailers = trailers;
    }

    public Status Status { get; }

    public StatusCode StatusCode => Status.StatusCode;

    /// <summary>Trailers received with the status (client side) or to send with it (server side).</summary>
    public Metadata Trailers { get; }
}
