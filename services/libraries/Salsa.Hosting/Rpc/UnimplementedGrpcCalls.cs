using Grpc.AspNetCore.Server;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Salsa.Hosting.Timing;

namespace Salsa.Hosting.Rpc;

/// <summary>
/// The gRPC port's answers for what no service maps. grpc-dotnet's own answer is a catch-all route,
/// which stands in front of the REST routes and turns a wrong method (405) or an unknown path (404)
/// into its own; here routing runs first, and only a gRPC request (HTTP/2, gRPC content type) that
/// found no gRPC method is answered UNIMPLEMENTED, so REST keeps its 404, 405 with <c>Allow</c>, and 415.
/// </summary>
public static class UnimplementedGrpcCalls
{
    public static IApplicationBuilder UseUnimplementedGrpcCalls(this IApplicationBuilder app) =>
        app.Use(static (context, next) =>
            context.GetEndpoint()?.Metadata.GetMetadata<GrpcMethodMetadata>() is null && context.Request.Protocol == "HTTP/2" && ServerTiming.IsGrpc(context)
                ? Unimplemented(context)
                : next(context));

    // A trailers-only response: the status rides in the headers, no message follows.
    private static Task Unimplemented(HttpContext context)
    {
        context.Response.StatusCode = StatusCodes.Status200OK;
        context.Response.ContentType = "application/grpc";
        context.Response.Headers["grpc-status"] = "12";
        context.Response.Headers["grpc-message"] = Uri.EscapeDataString($"No gRPC method {context.Request.Path} on this service.");
        return Task.CompletedTask;
    }
}
