using Microsoft.Extensions.Logging;

namespace Salsa.Grpc;

internal static partial class GrpcServerLog
{
    [LoggerMessage(1, LogLevel.Error, "Error when executing service method '{Method}'.")]
    public static partial void ErrorExecutingServiceMethod(ILogger logger, string method, Exception exception);

    [LoggerMessage(2, LogLevel.Debug, "Call '{Method}' ended with {StatusCode}: {Detail}")]
    public static partial void RpcFailed(ILogger logger, string method, StatusCode statusCode, string detail);

    [LoggerMessage(3, LogLevel.Debug, "Deadline exceeded for call '{Method}'.")]
    public static partial void DeadlineExceeded(ILogger logger, string method);

    [LoggerMessage(4, LogLevel.Debug, "Call '{Method}' was cancelled by the caller.")]
    public static partial void CancelledByCaller(ILogger logger, string method);

    [LoggerMessage(5, LogLevel.Debug, "Request on '{Path}' refused: {Reason}")]
    public static partial void RequestRefused(ILogger logger, string path, string reason);

    [LoggerMessage(6, LogLevel.Debug, "Invalid grpc-timeout '{Timeout}' on '{Method}'; the call runs without a deadline.")]
    public static partial void InvalidTimeout(ILogger logger, string timeout, string method);

    [LoggerMessage(7, LogLevel.Error, "Server call observer {Observer} failed on '{Method}'.")]
    public static partial void ObserverFailed(ILogger logger, string observer, string method, Exception exception);

    [LoggerMessage(8, LogLevel.Debug, "Unimplemented method '{Path}'.")]
    public static partial void Unimplemented(ILogger logger, string path);
}
