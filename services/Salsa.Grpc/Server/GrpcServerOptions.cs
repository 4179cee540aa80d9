using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace Salsa.Grpc;

/// <summary>Server-wide settings, configured through <c>AddSalsaGrpc(options => ...)</c>.</summary>
public sealed class GrpcServerOptions
{
    /// <summary>Largest request message accepted; larger ones end the call with RESOURCE_EXHAUSTED. Default 4 MB.</summary>
    public int MaxReceiveMessageSize { get; set; } = GrpcProtocol.DefaultMaxReceiveMessageSize;

    /// <summary>Largest response message sent; null (the default) means no limit.</summary>
    public int? MaxSendMessageSize { get; set; }

    /// <summary>
    /// Whether an unexpected exception's type and message are sent to the caller in grpc-message.
    /// Off by default: exception text can leak internals.
    /// </summary>
    public bool IncludeExceptionDetails { get; set; }

    /// <summary>
    /// Maps an application exception to the status (and trailers) the caller should see, e.g. a
    /// validation error to INVALID_ARGUMENT; null from the mapper means "unexpected" (UNKNOWN). Lets
    /// services throw one set of exceptions for both their REST and gRPC faces.
    /// </summary>
    public Func<Exception, RpcException?>? ExceptionMapper { get; set; }

    public GrpcHealthOptions Health { get; } = new();
}

public sealed class GrpcHealthOptions
{
    /// <summary>Which registered health checks decide the overall status; null means all of them.</summary>
    public Func<HealthCheckRegistration, bool>? Predicate { get; set; }

    /// <summary>
    /// How often a Watch stream re-runs the health checks to notice changes they report; explicit
    /// <see cref="GrpcHealthStatusStore"/> changes are pushed at once.
    /// </summary>
    public TimeSpan WatchPollInterval { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// How long one run of the health checks answers Check and Watch calls. Checks may touch the
    /// store or other services, so they run at most once per period (one run at a time, shared by
    /// every caller) instead of once per call; zero runs them on every call.
    /// </summary>
    public TimeSpan ResultCacheDuration { get; set; } = TimeSpan.FromSeconds(1);
}
