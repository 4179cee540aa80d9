using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;

namespace Salsa.Hosting.Timing;

public static class ServerTiming
{
    public const string HeaderName = "Server-Timing";
    public const string TrailerName = "server-timing";

    /// <summary>
    /// A finished job's result, with its queue and compute time recorded on the response: what every
    /// typed GetResult returns (REST wraps it in 200, gRPC returns it; the trailer carries the timing).
    /// </summary>
    public static T Reported<T>(HttpContext context, (Salsa.Store.JobRecord Job, T Result) found)
    {
        AddJob(context, found.Job.QueueMilliseconds, found.Job.ComputeMilliseconds);
        return found.Result;
    }

    /// <summary>Records a job's queue and compute time on the current response.</summary>
    public static void AddJob(HttpContext context, double queueMilliseconds, double computeMilliseconds)
    {
        var feature = context.Features.Get<ServerTimingFeature>();
        feature?.Add("queue", queueMilliseconds);
        feature?.Add("compute", computeMilliseconds);
    }

    /// <summary>Adds the header to every REST response, computed as the response starts.</summary>
    public static IApplicationBuilder UseServerTiming(this IApplicationBuilder app) =>
        app.Use(static (context, next) =>
        {
            var feature = new ServerTimingFeature();
            context.Features.Set(feature);
            if (!IsGrpc(context))
            {
                context.Response.OnStarting(static state =>
                {
                    var (ctx, f) = ((HttpContext, ServerTimingFeature))state;
                    ctx.Response.Headers[HeaderName] = f.Format();
                    return Task.CompletedTask;
                }, (context, feature));
            }

            return next(context);
        });

    internal static bool IsGrpc(HttpContext context) =>
        context.Request.ContentType?.StartsWith("application/grpc", StringComparison.OrdinalIgnoreCase) == true;
}
