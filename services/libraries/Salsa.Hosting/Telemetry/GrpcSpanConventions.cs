using System.Diagnostics;
using System.Globalization;
using Grpc.Core;
using OpenTelemetry;

namespace Salsa.Hosting.Telemetry;

/// <summary>
/// OpenTelemetry's RPC conventions on the spans of gRPC calls: the span is named
/// <c>package.Service/Method</c> and carries <c>rpc.system</c>, <c>rpc.service</c>, <c>rpc.method</c>
/// and <c>rpc.grpc.status_code</c>; it is marked an error where the conventions say so — any non-OK
/// status for a client, and for a server only the codes that are the server's fault (not a caller's
/// bad argument). Server spans get them from <see cref="Rpc.ServiceCallInterceptor"/> as the call runs;
/// grpc-dotnet's client span (<c>Grpc.Net.Client.GrpcOut</c>, tagged <c>grpc.method</c> and
/// <c>grpc.status_code</c>) gets them here, as an export processor, when it ends, with
/// <c>server.address</c> and <c>server.port</c> from its HttpClient child — where a server
/// span also gets its name back after ASP.NET Core's instrumentation named it after the route.
/// </summary>
internal sealed class GrpcSpanConventions : BaseProcessor<Activity>
{
    public override void OnEnd(Activity data)
    {
        // ASP.NET Core's instrumentation names a request's span after its route as the request ends;
        // a gRPC call's is named after its method, as the conventions say.
        if (data.Kind == ActivityKind.Server && data.GetTagItem("rpc.service") is string service && data.GetTagItem("rpc.method") is string method)
        {
            data.DisplayName = $"{service}/{method}";
            return;
        }

        // grpc-dotnet's client span has no address; its HttpClient child, ending first, does: the
        // conventions want server.address and server.port on the RPC span itself.
        if (data.Kind == ActivityKind.Client && data.Parent is { Kind: ActivityKind.Client } call && call.GetTagItem("grpc.method") is not null
            && call.GetTagItem("server.address") is null && data.GetTagItem("server.address") is { } address)
        {
            call.SetTag("server.address", address);
            call.SetTag("server.port", data.GetTagItem("server.port"));
        }

        if (data.Kind == ActivityKind.Client && data.GetTagItem("grpc.method") is string path && Start(data, path)
            && int.TryParse(data.GetTagItem("grpc.status_code")?.ToString(), NumberStyles.None, CultureInfo.InvariantCulture, out var code))
        {
            End(data, (StatusCode)code, ActivityKind.Client);
        }
    }

    /// <summary>Names the span after the method (<c>/package.Service/Method</c>) and adds the RPC attributes.</summary>
    public static bool Start(Activity? activity, string path)
    {
        if (activity is null || !TrySplit(path, out var service, out var method))
        {
            return false;
        }

        activity.DisplayName = $"{service}/{method}";
        if (activity.IsAllDataRequested)
        {
            activity.SetTag("rpc.system", "grpc");
            activity.SetTag("rpc.service", service);
            activity.SetTag("rpc.method", method);
        }

        return true;
    }

    /// <summary>A method's path (<c>/package.Service/Method</c>) as its service and method.</summary>
    public static bool TrySplit(string path, out string service, out string method)
    {
        var slash = path.Length > 1 && path[0] == '/' ? path.IndexOf('/', 1) : -1;
        (service, method) = slash < 0 ? (path, "") : (path[1..slash], path[(slash + 1)..]);
        return slash >= 0;
    }

    /// <summary>Records the call's status, marking the span an error where the conventions say so for that side.</summary>
    public static void End(Activity? activity, StatusCode status, ActivityKind side)
    {
        if (activity is null)
        {
            return;
        }

        if (activity.IsAllDataRequested)
        {
            activity.SetTag("rpc.grpc.status_code", (int)status);
        }

        var isError = side == ActivityKind.Server
            ? status is StatusCode.Unknown or StatusCode.DeadlineExceeded or StatusCode.Unimplemented or StatusCode.Internal or StatusCode.Unavailable or StatusCode.DataLoss
            : status != StatusCode.OK;
        if (isError)
        {
            activity.SetStatus(ActivityStatusCode.Error, status.ToString());
        }
    }
}
