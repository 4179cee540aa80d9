using System.Buffers.Binary;
using System.Net;
using System.Net.Http.Headers;

namespace Salsa.Services.Tests.Support;

/// <summary>
/// gRPC calls with hand-made bodies (truncated or corrupt messages), which no well-behaved client
/// sends: a plain HTTP/2 request with the gRPC framing, reading the status the server answers.
/// </summary>
public static class RawGrpc
{
    /// <summary>Calls <paramref name="path"/> with one framed <paramref name="message"/> and <paramref name="requestHeaders"/> sent as given (e.g. a <c>grpc-timeout</c> no client library would write).</summary>
    public static async Task<(int Status, string Message)> CallAsync(Uri address, string path, byte[] message, IReadOnlyDictionary<string, string>? requestHeaders = null)
    {
        using var handler = new SocketsHttpHandler();
        using var client = new HttpClient(handler) { BaseAddress = address };
        var framed = new byte[5 + message.Length];
        BinaryPrimitives.WriteInt32BigEndian(framed.AsSpan(1), message.Length);
        message.CopyTo(framed, 5);
        using var request = new HttpRequestMessage(HttpMethod.Post, path)
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Content = new ByteArrayContent(framed),
        };
        request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/grpc");
        request.Headers.TryAddWithoutValidation("te", "trailers");
        foreach (var (name, value) in requestHeaders ?? new Dictionary<string, string>())
        {
            request.Headers.TryAddWithoutValidation(name, value);
        }

        using var response = await client.SendAsync(request, TestContext.Current.CancellationToken);
        await response.Content.ReadAsByteArrayAsync(TestContext.Current.CancellationToken);
        var headers = response.TrailingHeaders.Contains("grpc-status") ? response.TrailingHeaders : response.Headers;
        var status = int.Parse(headers.GetValues("grpc-status").Single(), System.Globalization.CultureInfo.InvariantCulture);
        var text = headers.TryGetValues("grpc-message", out var values) ? Uri.UnescapeDataString(values.Single()) : "";
        return (status, text);
    }
}
