using System.Globalization;
using System.Net;
using System.Net.Http.Headers;

namespace Salsa.Grpc;

/// <summary>Reads a status from response trailers (or trailers-only headers), and maps HTTP failures to codes.</summary>
internal static class TrailerStatus
{
    public static Status Read(HttpHeaders headers)
    {
        if (!headers.NonValidated.TryGetValues(GrpcProtocol.StatusTrailer, out var statusValues))
        {
            return new Status(StatusCode.Internal, "The response ended without a grpc-status.");
        }

        if (!int.TryParse(statusValues.ToString(), NumberStyles.None, CultureInfo.InvariantCulture, out var code))
        {
            return new Status(StatusCode.Unknown, $"Unexpected grpc-status value '{statusValues}'.");
        }

        var detail = headers.NonValidated.TryGetValues(GrpcProtocol.MessageTrailer, out var messageValues)
            ? PercentEncoding.Decode(messageValues.ToString())
            : "";
        return new Status((StatusCode)code, detail);
    }

    /// <summary>doc/http-grpc-status-mapping.md: the code for a response that is not HTTP 200.</summary>
    public static StatusCode FromHttpStatus(HttpStatusCode status) => (int)status switch
    {
        400 => StatusCode.Internal,
        401 => StatusCode.Unauthenticated,
        403 => StatusCode.PermissionDenied,
        404 => StatusCode.Unimplemented,
        429 or 502 or 503 or 504 => StatusCode.Unavailable,
        _ => StatusCode.Unknown,
    };

    /// <summary>PROTOCOL-HTTP2.md's mapping of RST_STREAM error codes.</summary>
    public static StatusCode FromHttp2ErrorCode(long errorCode) => errorCode switch
    {
        0x7 => StatusCode.Unavailable,        // REFUSED_STREAM: safe to retry
        0x8 => StatusCode.Cancelled,          // CANCEL
        0xB => StatusCode.ResourceExhausted,  // ENHANCE_YOUR_CALM
        0xC => StatusCode.PermissionDenied,   // INADEQUATE_SECURITY
        _ => StatusCode.Internal,             // NO_ERROR, PROTOCOL_ERROR, INTERNAL_ERROR, FLOW_CONTROL_ERROR, COMPRESSION_ERROR, CONNECT_ERROR
    };
}
