using System.Net;
using System.Net.Http.Headers;
using Google.Protobuf;
using Salsa.Grpc.Tests.Echo;
using Salsa.Grpc.Tests.Support;

namespace Salsa.Grpc.Tests;

/// <summary>Requests a gRPC client would never send, made with a raw HttpClient.</summary>
public sealed class WireProtocolTests(EchoServerFixture fixture) : IClassFixture<EchoServerFixture>
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task RawPost_TruncatedFrame_InternalAndServerKeepsServing()
    {
        // The header promises 10 bytes; the stream ends after 3.
        using var response = await SendAsync([0, 0, 0, 0, 10, 1, 2, 3]);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("13", GrpcStatusOf(response));
        Assert.Contains("Incomplete message", GrpcMessageOf(response), StringComparison.Ordinal);
        Assert.Equal("still serving", (await fixture.Client.UnaryAsync(new EchoRequest { Text = "still serving" }, new CallOptions(CancellationToken: Token))).Text);
    }

    [Fact]
    public async Task RawPost_GarbageProtobuf_InvalidArgumentAndServerKeepsServing()
    {
        using var response = await SendAsync([0, 0, 0, 0, 3, 0xFF, 0xFF, 0xFF]);

        Assert.Equal("3", GrpcStatusOf(response));
        Assert.Contains("not a valid EchoRequest", GrpcMessageOf(response), StringComparison.Ordinal);
        Assert.Equal("still serving", (await fixture.Client.UnaryAsync(new EchoRequest { Text = "still serving" }, new CallOptions(CancellationToken: Token))).Text);
    }

    [Fact]
    public async Task RawPost_TwoMessagesToUnary_Internal()
    {
        using var response = await SendAsync([0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);

        Assert.Equal("13", GrpcStatusOf(response));
    }

    [Fact]
    public async Task RawPost_EmptyBody_Internal()
    {
        using var response = await SendAsync([]);

        Assert.Equal("13", GrpcStatusOf(response));
    }

    [Fact]
    public async Task RawPost_CompressedFlagWithoutEncoding_Internal()
    {
        using var response = await SendAsync([1, 0, 0, 0, 0]);

        Assert.Equal("13", GrpcStatusOf(response));
    }

    [Fact]
    public async Task RawPost_GzipEncoding_UnimplementedAdvertisingIdentity()
    {
        using var response = await SendAsync([0, 0, 0, 0, 0], request => request.Headers.TryAddWithoutValidation("grpc-encoding", "gzip"));

        Assert.Equal("12", GrpcStatusOf(response));
        Assert.Equal("identity", string.Join(",", response.Headers.GetValues("grpc-accept-encoding")));
    }

    [Fact]
    public async Task RawPost_WrongContentType_Http415()
    {
        using var response = await SendAsync([0, 0, 0, 0, 0], contentType: "application/json");

        Assert.Equal(HttpStatusCode.UnsupportedMediaType, response.StatusCode);
    }

    [Fact]
    public async Task RawPost_GrpcPlusProtoContentType_Accepted()
    {
        using var response = await SendAsync([0, 0, 0, 0, 0], contentType: "application/grpc+proto");
        await response.Content.ReadAsByteArrayAsync(Token);

        Assert.Equal("0", response.TrailingHeaders.GetValues("grpc-status").Single());
    }

    [Fact]
    public async Task RawPost_GrpcTimeoutAndNoClientTimer_ServerEndsCallWithDeadlineExceeded()
    {
        var key = $"raw-deadline-{Guid.NewGuid()}";
        var message = new EchoRequest { Text = key }.ToByteArray();
        byte[] frame = [0, 0, 0, 0, (byte)message.Length, .. message];

        using var response = await SendAsync(frame, request => request.Headers.TryAddWithoutValidation("grpc-timeout", "200m"), path: "/salsa.test.v1.Echo/WaitForCancellation");
        Assert.True(await fixture.Server.Probe.Cancelled(key).Task.WaitAsync(Token));

        // This client has no timer of its own: only the server's deadline can have ended the call.
        Assert.Equal("4", GrpcStatusOf(response));
    }

    [Fact]
    public async Task RawPost_Http11_Http426()
    {
        using var client = new HttpClient();
        using var request = new HttpRequestMessage(HttpMethod.Post, fixture.Server.Http1Address + "/salsa.test.v1.Echo/Unary")
        {
            Content = new ByteArrayContent([0, 0, 0, 0, 0]),
        };
        request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/grpc");

        using var response = await client.SendAsync(request, Token);

        Assert.Equal(HttpStatusCode.UpgradeRequired, response.StatusCode);
    }

    private async Task<HttpResponseMessage> SendAsync(
        byte[] body, Action<HttpRequestMessage>? configure = null, string contentType = "application/grpc", string path = "/salsa.test.v1.Echo/Unary")
    {
        using var client = new HttpClient();
        using var request = new HttpRequestMessage(HttpMethod.Post, fixture.Server.Address + path)
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Content = new ByteArrayContent(body),
        };
        request.Content.Headers.ContentType = MediaTypeHeaderValue.Parse(contentType);
        request.Headers.TryAddWithoutValidation("te", "trailers");
        configure?.Invoke(request);
        return await client.SendAsync(request, Token);
    }

    // A failure before any message is trailers-only: the status is in the headers.
    private static string? GrpcStatusOf(HttpResponseMessage response) =>
        response.Headers.TryGetValues("grpc-status", out var values) ? values.Single() : null;

    private static string GrpcMessageOf(HttpResponseMessage response) =>
        response.Headers.TryGetValues("grpc-message", out var values) ? values.Single() : "";
}
