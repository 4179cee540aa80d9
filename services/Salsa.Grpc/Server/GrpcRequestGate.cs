using Microsoft.AspNetCore.Http;

namespace Salsa.Grpc;

/// <summary>
/// Refuses what is not a gRPC request this server can serve, before any call state exists:
/// HTTP/1.x (426), a content-type other than application/grpc[+proto] (415, as
/// PROTOCOL-HTTP2.md asks), and a grpc-encoding other than identity (UNIMPLEMENTED, advertising
/// grpc-accept-encoding: identity).
/// </summary>
internal static class GrpcRequestGate
{
    public static bool TryAccept(HttpContext httpContext, GrpcServerRuntime runtime)
    {
        var request = httpContext.Request;
        if (!HttpProtocol.IsHttp2(request.Protocol) && !HttpProtocol.IsHttp3(request.Protocol))
        {
            Refuse(httpContext, runtime, StatusCodes.Status426UpgradeRequired, $"Request protocol '{request.Protocol}' is not supported: gRPC needs HTTP/2.");
            return false;
        }

        if (!GrpcProtocol.IsGrpcContentType(request.ContentType))
        {
            Refuse(httpContext, runtime, StatusCodes.Status415UnsupportedMediaType, $"Content-Type '{request.ContentType}' is not supported: use '{GrpcProtocol.ContentType}'.");
            return false;
        }

        var encoding = request.Headers.GrpcEncoding;
        if (encoding.Count > 0 && !GrpcProtocol.IsIdentityEncoding(encoding.ToString()))
        {
            var detail = $"Unsupported grpc-encoding value '{encoding}'. Supported encodings: {GrpcProtocol.IdentityEncoding}";
            httpContext.Response.Headers.GrpcAcceptEncoding = GrpcProtocol.IdentityEncoding;
            RespondTrailersOnly(httpContext, runtime, new Status(StatusCode.Unimplemented, detail));
            return false;
        }

        return true;
    }

    /// <summary>A complete gRPC response with no message: :status 200, content-type and the status in one HEADERS frame.</summary>
    public static void RespondTrailersOnly(HttpContext httpContext, GrpcServerRuntime runtime, Status status)
    {
        GrpcServerLog.RequestRefused(runtime.Logger, httpContext.Request.Path, status.Detail);
        httpContext.Response.StatusCode = StatusCodes.Status200OK;
        httpContext.Response.ContentType = GrpcProtocol.ContentType;
        GrpcStatusHeaders.Write(httpContext.Response.Headers, status);
    }

    // Not a gRPC exchange, so HTTP's own status leads; the grpc-status header only helps a gRPC
    // client that reads headers on any status.
    private static void Refuse(HttpContext httpContext, GrpcServerRuntime runtime, int httpStatus, string detail)
    {
        GrpcServerLog.RequestRefused(runtime.Logger, httpContext.Request.Path, detail);
        httpContext.Response.StatusCode = httpStatus;
        GrpcStatusHeaders.Write(httpContext.Response.Headers, new Status(StatusCode.Internal, detail));
    }
}
