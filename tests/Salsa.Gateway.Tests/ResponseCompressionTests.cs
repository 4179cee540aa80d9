using System.IO.Compression;
using System.Net;
using System.Net.Http.Headers;
using Salsa.Gateway.Runs;
using Salsa.Testing;

namespace Salsa.Gateway.Tests;

/// <summary>
/// The gateway compresses what compresses (SVG, GeoJSON, JSON, the console's modules) for clients that
/// ask, byte for byte the same once decoded; not the event stream, and not the keys API.
/// </summary>
public sealed class ResponseCompressionTests
{
    [Fact]
    public async Task Artifacts_AskedWithBrotliOrGzip_AreCompressed_AndDecodeToTheSameBytes()
    {
        var token = TestContext.Current.CancellationToken;
        using var directory = new TemporaryDirectory();
        await using var gateway = await GatewayServer.StartAsync(directory.Combine("salsa.db"), cancellationToken: token);
        var id = await gateway.StartRunAsync(new { workflow = "census-indiana" }, token);
        Assert.Equal(RunState.Succeeded, (await gateway.Runs.WaitAsync(id, token)).State);
        using var raw = new HttpClient(new SocketsHttpHandler { AutomaticDecompression = DecompressionMethods.None }) { BaseAddress = gateway.Http.BaseAddress };

        foreach (var (path, type) in new[] { ($"/api/runs/{id}/artifacts/map.svg", "image/svg+xml"), ($"/api/runs/{id}/artifacts/clusters.geojson", "application/geo+json"), ("/run-view.js", "text/javascript") })
        {
            var plain = await raw.GetByteArrayAsync(path, token);
            foreach (var encoding in new[] { "br", "gzip" })
            {
                using var request = new HttpRequestMessage(HttpMethod.Get, path);
                request.Headers.AcceptEncoding.Add(new StringWithQualityHeaderValue(encoding));
                using var response = await raw.SendAsync(request, token);
                response.EnsureSuccessStatusCode();
                var compressed = await response.Content.ReadAsByteArrayAsync(token);

                Assert.Equal([encoding], response.Content.Headers.ContentEncoding);
                Assert.StartsWith(type, response.Content.Headers.ContentType?.MediaType, StringComparison.Ordinal);
                Assert.Equal(plain, Decode(compressed, encoding));
                Assert.True(compressed.Length < plain.Length / 2, $"{path} {encoding}: {compressed.Length:N0} bytes of {plain.Length:N0}");
            }
        }

        // The event stream is sent as written (a compressor would hold events back), and so is the keys API.
        foreach (var path in new[] { $"/api/runs/{id}/events", "/api/keys" })
        {
            using var request = new HttpRequestMessage(HttpMethod.Get, path);
            request.Headers.AcceptEncoding.Add(new StringWithQualityHeaderValue("br"));
            using var response = await raw.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, token);
            // (ASP.NET Core marks an event stream "identity" itself.)
            Assert.All(response.Content.Headers.ContentEncoding, e => Assert.Equal("identity", e));
        }
    }

    private static byte[] Decode(byte[] data, string encoding)
    {
        using var input = new MemoryStream(data);
        using Stream decoder = encoding == "br" ? new BrotliStream(input, CompressionMode.Decompress) : new GZipStream(input, CompressionMode.Decompress);
        using var output = new MemoryStream();
        decoder.CopyTo(output);
        return output.ToArray();
    }
}
