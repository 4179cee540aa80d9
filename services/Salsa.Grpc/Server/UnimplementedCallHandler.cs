using Microsoft.AspNetCore.Http;

namespace Salsa.Grpc;

/// <summary>Answers gRPC requests for unknown services and methods, and methods left unimplemented on purpose.</summary>
internal sealed class UnimplementedCallHandler(GrpcServerRuntime runtime)
{
    public Task HandleCallAsync(HttpContext httpContext)
    {
        if (GrpcRequestGate.TryAccept(httpContext, runtime))
        {
            var path = httpContext.Request.Path.Value ?? "";
            GrpcServerLog.Unimplemented(runtime.Logger, path);
            GrpcRequestGate.RespondTrailersOnly(httpContext, runtime, new Status(StatusCode.Unimplemented, $"Method '{path}' is not implemented by this server."));
        }

        return Task.CompletedTask;
    }
}
