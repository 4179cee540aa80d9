namespace Salsa.Grpc;

/// <summary>Names and values of the gRPC over HTTP/2 protocol (doc/PROTOCOL-HTTP2.md).</summary>
internal static class GrpcProtocol
{
    public const string ContentType = "application/grpc";
    public const string ContentTypeProto = "application/grpc+proto";
    public const string TimeoutHeader = "grpc-timeout";
    public const string EncodingHeader = "grpc-encoding";
    public const string AcceptEncodingHeader = "grpc-accept-encoding";
    public const string StatusTrailer = "grpc-status";
    public const string MessageTrailer = "grpc-message";
    public const string TeHeader = "te";
    public const string TeTrailers = "trailers";
    public const string IdentityEncoding = "identity";
    public const string UserAgent = "grpc-csharp-salsa/1.0";

    /// <summary>1-byte compressed flag + 4-byte big-endian length.</summary>
    public const int MessageHeaderSize = 5;

    /// <summary>The gRPC default receive limit; services raise it where messages are large.</summary>
    public const int DefaultMaxReceiveMessageSize = 4 * 1024 * 1024;

    private static readonly string[] StatusStrings = CreateStatusStrings();

    /// <summary>The decimal wire form of a code, without allocating per call.</summary>
    public static string StatusString(StatusCode code)
    {
        var index = (int)code;
        return (uint)index < (uint)StatusStrings.Length ? StatusStrings[index] : index.ToString(System.Globalization.CultureInfo.InvariantCulture);
    }

    /// <summary>
    /// application/grpc and application/grpc+proto, optionally with parameters. Other subtypes
    /// (+json, custom) are formats this implementation does not speak, so they get HTTP 415.
    /// </summary>
    public static bool IsGrpcContentType(string? contentType)
    {
        if (contentType is null || !contentType.StartsWith(ContentType, StringComparison.OrdinalIgnoreCase))
        {
            return false;
        }

        var rest = contentType.AsSpan(ContentType.Length);
        if (rest.StartsWith("+proto", StringComparison.OrdinalIgnoreCase))
        {
            rest = rest[6..];
        }

        return rest.IsEmpty || rest[0] == ';';
    }

    /// <summary>True for grpc-encoding values this implementation can read: none, or identity.</summary>
    public static bool IsIdentityEncoding(string? encoding) =>
        string.IsNullOrEmpty(encoding) || string.Equals(encoding, IdentityEncoding, StringComparison.OrdinalIgnoreCase);

    private static string[] CreateStatusStrings()
    {
        var strings = new string[17];
        for (var i = 0; i < strings.Length; i++)
        {
            strings[i] = i.ToString(System.Globalization.CultureInfo.InvariantCulture);
        }

        return strings;
    }
}
