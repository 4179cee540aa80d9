using System.Net.Http.Headers;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Primitives;

namespace Salsa.Grpc;

/// <summary>
/// Custom metadata to and from HTTP headers. Reserved names (pseudo-headers, the transport's own
/// headers and the grpc- protocol headers) are never custom metadata; -bin values travel as base64.
/// </summary>
internal static class MetadataHeaders
{
    public static bool IsReserved(string name)
    {
        if (name.Length == 0 || name[0] == ':')
        {
            return true;
        }

        if (name.StartsWith("grpc-", StringComparison.OrdinalIgnoreCase))
        {
            // grpc-status-details-bin carries rich error details and belongs to the application.
            return !string.Equals(name, "grpc-status-details-bin", StringComparison.OrdinalIgnoreCase);
        }

        return name.Equals("content-type", StringComparison.OrdinalIgnoreCase)
            || name.Equals("te", StringComparison.OrdinalIgnoreCase)
            || name.Equals("host", StringComparison.OrdinalIgnoreCase)
            || name.Equals("content-length", StringComparison.OrdinalIgnoreCase)
            || name.Equals("connection", StringComparison.OrdinalIgnoreCase)
            || name.Equals("transfer-encoding", StringComparison.OrdinalIgnoreCase);
    }

    public static string EncodeBinary(byte[] value) => Convert.ToBase64String(value);

    /// <summary>Padded or unpadded base64, as the spec requires receivers to accept both.</summary>
    public static byte[] DecodeBinary(string value)
    {
        var text = value.AsSpan().Trim();
        var padding = (4 - (text.Length % 4)) % 4;
        try
        {
            return padding == 0
                ? Convert.FromBase64String(text.ToString())
                : Convert.FromBase64String(string.Concat(text, "==".AsSpan(0, Math.Min(padding, 2))));
        }
        catch (FormatException)
        {
            throw new RpcException(new Status(StatusCode.InvalidArgument, "A -bin metadata value is not valid base64."));
        }
    }

    /// <summary>Writes entries into server response headers or trailers.</summary>
    public static void WriteTo(IHeaderDictionary headers, Metadata metadata)
    {
        foreach (var entry in metadata)
        {
            if (IsReserved(entry.Key))
            {
                continue;
            }

            var value = entry.IsBinary ? EncodeBinary(entry.ValueBytes) : entry.Value;
            headers.Append(entry.Key, value);
        }
    }

    /// <summary>Writes entries into client request headers.</summary>
    public static void WriteTo(HttpRequestHeaders headers, Metadata metadata)
    {
        foreach (var entry in metadata)
        {
            if (IsReserved(entry.Key))
            {
                continue;
            }

            headers.TryAddWithoutValidation(entry.Key, entry.IsBinary ? EncodeBinary(entry.ValueBytes) : entry.Value);
        }
    }

    /// <summary>Reads server request headers. A binary header may hold several comma-separated values.</summary>
    public static Metadata ReadFrom(IHeaderDictionary headers)
    {
        var metadata = new Metadata();
        foreach (var (name, values) in headers)
        {
            if (!IsReserved(name))
            {
                Add(metadata, name, values);
            }
        }

        return metadata;
    }

    /// <summary>Reads client response headers or trailers.</summary>
    public static Metadata ReadFrom(HttpHeaders headers)
    {
        var metadata = new Metadata();
        foreach (var (name, values) in headers.NonValidated)
        {
            if (IsReserved(name))
            {
                continue;
            }

            foreach (var value in values)
            {
                AddOne(metadata, name.ToLowerInvariant(), value);
            }
        }

        return metadata;
    }

    private static void Add(Metadata metadata, string name, StringValues values)
    {
        var key = name.ToLowerInvariant();
        foreach (var value in values)
        {
            AddOne(metadata, key, value ?? "");
        }
    }

    private static void AddOne(Metadata metadata, string key, string value)
    {
        if (!Metadata.IsBinaryKey(key))
        {
            metadata.Add(key, value);
            return;
        }

        // HTTP/2 peers may fold repeated headers into one comma-separated field.
        foreach (var range in value.AsSpan().Split(','))
        {
            var part = value[range].Trim();
            if (part.Length > 0 || value.Length == 0)
            {
                metadata.Add(key, DecodeBinary(part));
            }
        }
    }
}
