using System.Diagnostics;

namespace Salsa.Grpc;

/// <summary>Telemetry names of this library, for hosts to subscribe to (<c>AddSource(GrpcDiagnostics.ActivitySourceName)</c>).</summary>
public static class GrpcDiagnostics
{
    /// <summary>One Server activity per served call, one Client activity per call made.</summary>
    public const string ActivitySourceName = "Salsa.Grpc";

    internal static readonly ActivitySource Source = new(ActivitySourceName);

    internal const string RpcSystemTag = "rpc.system";
    internal const string RpcServiceTag = "rpc.service";
    internal const string RpcMethodTag = "rpc.method";
    internal const string StatusCodeTag = "rpc.grpc.status_code";

    /// <summary>
    /// Ends an activity with the call's status. The codes OpenTelemetry's RPC conventions count as
    /// errors differ by side: a server does not fail because its caller sent a bad argument.
    /// </summary>
    internal static void Complete(Activity activity, Status status, bool isServer)
    {
        if (activity.IsAllDataRequested)
        {
            activity.SetTag(StatusCodeTag, (int)status.StatusCode);
        }

        var isError = isServer
            ? status.StatusCode is StatusCode.Unknown or StatusCode.DeadlineExceeded or StatusCode.Unimplemented
                or StatusCode.Internal or StatusCode.Unavailable or StatusCode.DataLoss
            : status.StatusCode != StatusCode.OK;
        if (isError)
        {
            activity.SetStatus(ActivityStatusCode.Error, status.Detail);
        }

        activity.Stop();
    }

    internal static void SetRpcTags(Activity activity, string serviceName, string methodName)
    {
        if (activity.IsAllDataRequested)
        {
            activity.SetTag(RpcSystemTag, "grpc");
            activity.SetTag(RpcServiceTag, serviceName);
            activity.SetTag(RpcMethodTag, methodName);
        }
    }
}
