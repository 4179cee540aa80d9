namespace Salsa.Grpc;

/// <summary>
/// Per-call hooks for cross-cutting behaviour (timing trailers, metrics, authorisation). Register
/// implementations as singletons in DI; they run in registration order on the call's own flow.
/// </summary>
public interface IServerCallObserver
{
    /// <summary>
    /// Before the request is read and the service method runs. Throwing an
    /// <see cref="RpcException"/> ends the call with its status without running the method.
    /// </summary>
    void OnCallStarting(ServerCallContext context);

    /// <summary>
    /// After the method finished and before the status is sent; trailers added to
    /// <see cref="ServerCallContext.ResponseTrailers"/> here are sent with it.
    /// </summary>
    void OnCallCompleting(ServerCallContext context, Status status);
}
