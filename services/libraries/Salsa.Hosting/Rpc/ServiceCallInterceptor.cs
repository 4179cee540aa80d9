using System.Diagnostics;
using Grpc.Core;
using Grpc.Core.Interceptors;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Telemetry;
using Salsa.Hosting.Timing;

namespace Salsa.Hosting.Rpc;

/// <summary>
/// What every service's gRPC calls share beyond grpc-dotnet, as one server interceptor:
/// <list type="bullet">
/// <item>a call whose <c>grpc-timeout</c> cannot be parsed is refused (grpc-dotnet would run it with no
/// deadline), and one whose deadline has already passed is ended with DEADLINE_EXCEEDED before any work;</item>
/// <item>the services' exceptions become the statuses of <see cref="ServiceErrors"/> (the same table REST uses);</item>
/// <item>every call ends with a <c>server-timing</c> trailer (the service's own time, and a job's queue
/// and compute time), on success and on failure alike;</item>
/// <item>the call's server span (ASP.NET Core's request activity, which grpc-dotnet does not replace)
/// is named <c>package.Service/Method</c> and carries OpenTelemetry's RPC attributes and, at the end,
/// the status, marked an error where the conventions say a server failed (see <see cref="Telemetry.GrpcSpanConventions"/>).</item>
/// </list>
/// </summary>
internal sealed class ServiceCallInterceptor(RpcMetrics metrics, StreamSlots streams) : Interceptor
{
    // Unary calls are most calls: written out, so a call allocates no closure and no delegate for the wrap.
    public override async Task<TResponse> UnaryServerHandler<TRequest, TResponse>(TRequest request, ServerCallContext context, UnaryServerMethod<TRequest, TResponse> continuation)
    {
        var clock = Stopwatch.GetTimestamp();
        try
        {
            Admit(context);
            var response = await continuation(request, context).ConfigureAwait(false);
            Ended(context, context.Status.StatusCode, clock);
            return response;
        }
        catch (Exception exception) when (Failed(context, exception, clock) is { } status)
        {
            throw status;
        }
        finally
        {
            AddServerTiming(context);
        }
    }

    public override Task<TResponse> ClientStreamingServerHandler<TRequest, TResponse>(IAsyncStreamReader<TRequest> requestStream, ServerCallContext context, ClientStreamingServerMethod<TRequest, TResponse> continuation) =>
        AroundAsync(context, () => continuation(requestStream, context));

    // A server stream holds its slot among the process's streams for as long as it lasts.
    public override Task ServerStreamingServerHandler<TRequest, TResponse>(TRequest request, IServerStreamWriter<TResponse> responseStream, ServerCallContext context, ServerStreamingServerMethod<TRequest, TResponse> continuation) =>
        AroundAsync(context, async () =>
        {
            using var slot = streams.Acquire(context.GetHttpContext());
            await continuation(request, responseStream, context).ConfigureAwait(false);
            return true;
        });

    public override Task DuplexStreamingServerHandler<TRequest, TResponse>(IAsyncStreamReader<TRequest> requestStream, IServerStreamWriter<TResponse> responseStream, ServerCallContext context, DuplexStreamingServerMethod<TRequest, TResponse> continuation) =>
        AroundAsync(context, async () =>
        {
            using var slot = streams.Acquire(context.GetHttpContext());
            await continuation(requestStream, responseStream, context).ConfigureAwait(false);
            return true;
        });

    private async Task<T> AroundAsync<T>(ServerCallContext context, Func<Task<T>> call)
    {
        var clock = Stopwatch.GetTimestamp();
        try
        {
            Admit(context);
            var result = await call().ConfigureAwait(false);
            Ended(context, context.Status.StatusCode, clock);
            return result;
        }
        catch (Exception exception) when (Failed(context, exception, clock) is { } status)
        {
            throw status;
        }
        finally
        {
            AddServerTiming(context);
        }
    }

    /// <summary>Records a failed call; returns the status to throw instead of <paramref name="exception"/>, or null to let it go on as it is.</summary>
    private RpcException? Failed(ServerCallContext context, Exception exception, long clock)
    {
        var status = exception as RpcException ?? ServiceErrors.ToRpcException(exception);
        Ended(context, status?.StatusCode ?? StatusCode.Unknown, clock);
        return status is not null && status != exception ? status : null;
    }

    /// <summary>Refuses a malformed deadline and one already past, before the handler runs.</summary>
    private static void Admit(ServerCallContext context)
    {
        GrpcSpanConventions.Start(Activity.Current, context.Method);

        // grpc-dotnet runs a call whose grpc-timeout it cannot parse, or that rounds to zero, with no deadline.
        if (context.GetHttpContext().Request.Headers["grpc-timeout"] is [{ } timeout, ..])
        {
            if (!IsWellFormedTimeout(timeout))
            {
                throw new RpcException(new Status(StatusCode.Internal,
                    $"Malformed grpc-timeout '{timeout}': expected 1 to 8 digits and a unit (H, M, S, m, u or n)."));
            }

            if (context.Deadline == DateTime.MaxValue)
            {
                throw new RpcException(new Status(StatusCode.DeadlineExceeded, $"The call's deadline ({timeout}) passed before the service started it."));
            }
        }

        if (context.Deadline <= DateTime.UtcNow)
        {
            throw new RpcException(new Status(StatusCode.DeadlineExceeded, "The call's deadline passed before the service started it."));
        }
    }

    /// <summary>The gRPC wire format of a timeout: 1 to 8 ASCII digits, then H, M, S, m, u or n.</summary>
    private static bool IsWellFormedTimeout(string value) =>
        value.Length is >= 2 and <= 9 && value[..^1].All(char.IsAsciiDigit) && value[^1] is 'H' or 'M' or 'S' or 'm' or 'u' or 'n';

    private static void AddServerTiming(ServerCallContext context)
    {
        if (context.GetHttpContext().Features.Get<ServerTimingFeature>() is { } feature)
        {
            context.ResponseTrailers.Add(ServerTiming.TrailerName, feature.Format());
        }
    }

    private void Ended(ServerCallContext context, StatusCode status, long clock)
    {
        GrpcSpanConventions.End(Activity.Current, status, ActivityKind.Server);
        metrics.Record(context.Method, status, Stopwatch.GetElapsedTime(clock).TotalMilliseconds);
    }
}
