using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Server.Kestrel.Core.Features;

namespace Salsa.Grpc;

/// <summary>
/// One bound method: checks the request is gRPC, sets up the call (deadline, activity,
/// observers), runs the method through <see cref="InvokeAsync"/>, maps its outcome to a status
/// and sends it as trailers (or trailers-only when nothing was sent yet).
/// </summary>
internal abstract class ServerCallHandler(ServerMethod method, GrpcServerRuntime runtime)
{
    // CancelAfter's limit; a longer grpc-timeout is as good as none.
    private static readonly TimeSpan MaxTimerTimeout = TimeSpan.FromMilliseconds(uint.MaxValue - 1);

    public ServerMethod Method { get; } = method;

    protected GrpcServerRuntime Runtime { get; } = runtime;

    public Task HandleCallAsync(HttpContext httpContext) =>
        GrpcRequestGate.TryAccept(httpContext, Runtime) ? HandleGrpcCallAsync(httpContext) : Task.CompletedTask;

    /// <summary>Reads the request message(s), runs the service method, writes the response message(s).</summary>
    protected abstract Task InvokeAsync(HttpContext httpContext, ServerCallContext context);

    private async Task HandleGrpcCallAsync(HttpContext httpContext)
    {
        ConfigureRequestLimits(httpContext);
        httpContext.Response.ContentType = GrpcProtocol.ContentType;

        var requestAborted = httpContext.RequestAborted;
        var deadlineSource = StartDeadline(httpContext, requestAborted, out var deadline);
        var context = new ServerCallContext(httpContext, Method, deadline, deadlineSource is not null, deadlineSource?.Token ?? requestAborted);
        var activity = GrpcDiagnostics.Source.HasListeners() ? ServerActivity.Start(httpContext, Method) : null;
        var status = Status.DefaultSuccess;
        try
        {
            try
            {
                var observers = Runtime.Observers;
                for (var i = 0; i < observers.Length; i++)
                {
                    observers[i].OnCallStarting(context);
                }

                await InvokeAsync(httpContext, context).ConfigureAwait(false);
                status = context.DeadlineReached ? DeadlineStatus() : context.Status;
            }
            catch (Exception ex)
            {
                status = MapException(ex, context);
            }

            NotifyCompleting(context, status);
            WriteStatus(httpContext, context, status);
        }
        finally
        {
            if (activity is not null)
            {
                GrpcDiagnostics.Complete(activity, status, isServer: true);
            }

            deadlineSource?.Dispose();
        }
    }

    private CancellationTokenSource? StartDeadline(HttpContext httpContext, CancellationToken requestAborted, out DateTime deadline)
    {
        deadline = DateTime.MaxValue;
        var header = httpContext.Request.Headers.GrpcTimeout;
        if (header.Count == 0)
        {
            return null;
        }

        if (!GrpcTimeout.TryParse(header[0], out var timeout))
        {
            GrpcServerLog.InvalidTimeout(Runtime.Logger, header.ToString(), Method.FullName);
            return null;
        }

        if (timeout > MaxTimerTimeout)
        {
            return null;
        }

        deadline = DateTime.UtcNow + timeout;
        var source = CancellationTokenSource.CreateLinkedTokenSource(requestAborted);
        source.CancelAfter(timeout);
        return source;
    }

    // Kestrel's defaults are for HTTP requests, not RPC streams: the message size limit replaces
    // the body size limit, and a streaming caller may legitimately pause longer than the minimum
    // data rate allows.
    private void ConfigureRequestLimits(HttpContext httpContext)
    {
        if (httpContext.Features.Get<IHttpMaxRequestBodySizeFeature>() is { IsReadOnly: false } bodySize)
        {
            bodySize.MaxRequestBodySize = null;
        }

        if (Method.IsClientStreaming && httpContext.Features.Get<IHttpMinRequestBodyDataRateFeature>() is { } dataRate)
        {
            dataRate.MinDataRate = null;
        }
    }

    private static Status DeadlineStatus() => new(StatusCode.DeadlineExceeded, "Deadline Exceeded");

    private Status MapException(Exception exception, ServerCallContext context)
    {
        var logger = Runtime.Logger;
        if (exception is RpcException rpc)
        {
            return Failed(rpc, context);
        }

        // After the deadline or the caller's reset, whatever the method throws (cancellation, a
        // closed stream) is a consequence of that, and the caller is owed that reason.
        if (context.DeadlineReached)
        {
            GrpcServerLog.DeadlineExceeded(logger, Method.FullName);
            return DeadlineStatus();
        }

        if (context.HttpContext.RequestAborted.IsCancellationRequested)
        {
            GrpcServerLog.CancelledByCaller(logger, Method.FullName);
            return new Status(StatusCode.Cancelled, "Call cancelled by the caller.");
        }

        if (Runtime.Options.ExceptionMapper?.Invoke(exception) is { } mapped)
        {
            return Failed(mapped, context);
        }

        GrpcServerLog.ErrorExecutingServiceMethod(logger, Method.FullName, exception);
        var detail = Runtime.Options.IncludeExceptionDetails
            ? $"Exception was thrown by handler. {exception.GetType().Name}: {exception.Message}"
            : "Exception was thrown by handler.";
        return new Status(StatusCode.Unknown, detail, exception);
    }

    private Status Failed(RpcException rpc, ServerCallContext context)
    {
        foreach (var entry in rpc.Trailers)
        {
            context.ResponseTrailers.Add(entry);
        }

        GrpcServerLog.RpcFailed(Runtime.Logger, Method.FullName, rpc.StatusCode, rpc.Status.Detail);
        return rpc.Status;
    }

    private void NotifyCompleting(ServerCallContext context, Status status)
    {
        var observers = Runtime.Observers;
        for (var i = 0; i < observers.Length; i++)
        {
            try
            {
                observers[i].OnCallCompleting(context, status);
            }
            catch (Exception ex)
            {
                GrpcServerLog.ObserverFailed(Runtime.Logger, observers[i].GetType().Name, Method.FullName, ex);
            }
        }
    }

    private static void WriteStatus(HttpContext httpContext, ServerCallContext context, Status status)
    {
        IHeaderDictionary destination;
        if (!context.ResponseStarted && !httpContext.Response.HasStarted)
        {
            // Trailers-only: one HEADERS frame carrying :status, content-type and the status.
            destination = httpContext.Response.Headers;
        }
        else if (httpContext.Features.Get<IHttpResponseTrailersFeature>()?.Trailers is { IsReadOnly: false } trailers)
        {
            destination = trailers;
        }
        else
        {
            return; // the response is already over (the caller reset the stream)
        }

        GrpcStatusHeaders.Write(destination, status);
        if (context.ResponseTrailersOrNull is { Count: > 0 } custom)
        {
            MetadataHeaders.WriteTo(destination, custom);
        }
    }
}

internal static class GrpcStatusHeaders
{
    public static void Write(IHeaderDictionary destination, Status status)
    {
        destination.GrpcStatus = GrpcProtocol.StatusString(status.StatusCode);
        if (status.Detail.Length > 0)
        {
            destination.GrpcMessage = PercentEncoding.Encode(status.Detail);
        }
    }
}
