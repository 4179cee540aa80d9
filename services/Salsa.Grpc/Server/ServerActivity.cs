using System.Diagnostics;
using Microsoft.AspNetCore.Http;

namespace Salsa.Grpc;

/// <summary>
/// The Server span of a call. When ASP.NET Core's hosting layer made an activity for the request
/// it has already taken the caller's traceparent, so ours nests under it; when it did not (nobody
/// listens to it and logging is off), ours takes the W3C context from the headers itself. Either
/// way the trace continues the caller's and the context is extracted exactly once.
/// </summary>
internal static class ServerActivity
{
    private static readonly DistributedContextPropagator.PropagatorGetterCallback HeaderGetter = GetHeader;

    public static Activity? Start(HttpContext httpContext, ServerMethod method)
    {
        Activity? activity;
        if (Activity.Current is not null)
        {
            activity = GrpcDiagnostics.Source.StartActivity(method.ActivityName, ActivityKind.Server);
        }
        else
        {
            DistributedContextPropagator.Current.ExtractTraceIdAndState(httpContext.Request.Headers, HeaderGetter, out var traceParent, out var traceState);
            activity = traceParent is not null && ActivityContext.TryParse(traceParent, traceState, isRemote: true, out var parent)
                ? GrpcDiagnostics.Source.StartActivity(method.ActivityName, ActivityKind.Server, parent)
                : GrpcDiagnostics.Source.StartActivity(method.ActivityName, ActivityKind.Server);
        }

        if (activity is not null)
        {
            GrpcDiagnostics.SetRpcTags(activity, method.ServiceName, method.Name);
        }

        return activity;
    }

    private static void GetHeader(object? carrier, string fieldName, out string? fieldValue, out IEnumerable<string>? fieldValues)
    {
        fieldValues = null;
        fieldValue = carrier is IHeaderDictionary headers && headers.TryGetValue(fieldName, out var values) ? values.ToString() : null;
    }
}
