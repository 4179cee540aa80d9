using Google.Protobuf;
using Salsa.Grpc.Tests.Echo;
using Salsa.Grpc.Tests.Support;

namespace Salsa.Grpc.Tests;

public sealed class UnaryCallTests(EchoServerFixture fixture) : IClassFixture<EchoServerFixture>
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Unary_TypedClient_ReturnsEchoAndOkStatus()
    {
        using var call = fixture.Client.UnaryAsync(new EchoRequest { Text = "hello", Payload = ByteString.CopyFrom(1, 2, 3) }, new CallOptions(CancellationToken: Token));

        var reply = await call;

        Assert.Equal("hello", reply.Text);
        Assert.Equal([1, 2, 3], reply.Payload.ToByteArray());
        Assert.Equal(StatusCode.OK, call.GetStatus().StatusCode);
        Assert.Empty(call.GetTrailers());
    }

    [Fact]
    public async Task UnaryAsync_ByPath_ReturnsEcho()
    {
        var reply = await fixture.Channel.UnaryAsync<EchoRequest, EchoReply>("/salsa.test.v1.Echo/Unary", new EchoRequest { Text = "by path" }, new CallOptions(CancellationToken: Token));

        Assert.Equal("by path", reply.Text);
    }

    [Fact]
    public async Task Unary_ServerContext_SeesMethodAndPeer()
    {
        var method = await fixture.Client.UnaryAsync(new EchoRequest { Text = "method" }, new CallOptions(CancellationToken: Token));
        var peer = await fixture.Client.UnaryAsync(new EchoRequest { Text = "peer" }, new CallOptions(CancellationToken: Token));

        Assert.Equal("/salsa.test.v1.Echo/Unary", method.Text);
        Assert.StartsWith("ipv4:127.0.0.1:", peer.Text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Unary_MetadataBothWays_TextAndBinaryRoundTrip()
    {
        byte[] binary = [0, 1, 2, 254, 255];
        var headers = new Metadata { { "echo-text", "plain value" }, { "echo-data-bin", binary }, { "other", "not echoed" } };
        using var call = fixture.Client.UnaryAsync(new EchoRequest { Text = "meta" }, new CallOptions(headers, CancellationToken: Token));

        var responseHeaders = await call.ResponseHeadersAsync;
        await call;
        var trailers = call.GetTrailers();

        Assert.Equal("plain value", responseHeaders.GetValue("echo-text"));
        Assert.Equal(binary, responseHeaders.GetValueBytes("echo-data-bin"));
        Assert.Null(responseHeaders.Get("other"));
        Assert.Equal("plain value", trailers.GetValue("echo-text"));
        Assert.Equal(binary, trailers.GetValueBytes("echo-data-bin"));
    }

    [Fact]
    public async Task Unary_RpcExceptionOnServer_PropagatesStatusDetailAndTrailers()
    {
        using var call = fixture.Client.FailAsync(new EchoRequest { Text = "no such thing — ünïcode 100%", Count = (int)StatusCode.NotFound }, new CallOptions(CancellationToken: Token));

        var ex = await Assert.ThrowsAsync<RpcException>(() => call.ResponseAsync);

        Assert.Equal(StatusCode.NotFound, ex.StatusCode);
        Assert.Equal("no such thing — ünïcode 100%", ex.Status.Detail);
        Assert.Equal("on-purpose", ex.Trailers.GetValue("fail-reason"));
        Assert.Equal([1, 2, 3, 250], ex.Trailers.GetValueBytes("fail-bin"));
        Assert.Equal(StatusCode.NotFound, call.GetStatus().StatusCode);
        Assert.Equal("on-purpose", call.GetTrailers().GetValue("fail-reason"));
    }

    [Fact]
    public async Task Unary_HandlerThrows_UnknownWithoutExceptionText()
    {
        var ex = await Assert.ThrowsAsync<RpcException>(() => fixture.Client.ThrowAsync(new EchoRequest { Text = "secret internals" }, new CallOptions(CancellationToken: Token)).ResponseAsync);

        Assert.Equal(StatusCode.Unknown, ex.StatusCode);
        Assert.Equal("Exception was thrown by handler.", ex.Status.Detail);
    }

    [Fact]
    public async Task Unary_DeliberatelyUnimplementedMethod_ReturnsUnimplemented()
    {
        var ex = await Assert.ThrowsAsync<RpcException>(() => fixture.Client.UnimplementedAsync(new EchoRequest(), new CallOptions(CancellationToken: Token)).ResponseAsync);

        Assert.Equal(StatusCode.Unimplemented, ex.StatusCode);
    }

    [Theory]
    [InlineData("/salsa.test.v1.Echo/NoSuchMethod")]
    [InlineData("/salsa.test.v1.NoSuchService/Unary")]
    public async Task UnaryAsync_UnknownPath_ReturnsUnimplemented(string path)
    {
        var ex = await Assert.ThrowsAsync<RpcException>(() => fixture.Channel.UnaryAsync<EchoRequest, EchoReply>(path, new EchoRequest(), new CallOptions(CancellationToken: Token)).ResponseAsync);

        Assert.Equal(StatusCode.Unimplemented, ex.StatusCode);
    }

    [Fact]
    public async Task Unary_200ConcurrentCalls_AllSucceed()
    {
        var calls = Enumerable.Range(0, 200)
            .Select(i => fixture.Client.UnaryAsync(new EchoRequest { Text = $"call {i}" }, new CallOptions(CancellationToken: Token)).ResponseAsync)
            .ToArray();

        var replies = await Task.WhenAll(calls);

        Assert.Equal(Enumerable.Range(0, 200).Select(i => $"call {i}"), replies.Select(r => r.Text));
    }

    [Fact]
    public async Task ResponseHeadersAsync_FailedCall_Throws()
    {
        using var call = fixture.Client.FailAsync(new EchoRequest { Text = "x", Count = (int)StatusCode.Aborted }, new CallOptions(CancellationToken: Token));

        await Assert.ThrowsAsync<RpcException>(() => call.ResponseAsync);
        var headers = await call.ResponseHeadersAsync;

        Assert.Empty(headers); // trailers-only: no headers of its own, the status came in trailers
        Assert.Equal(StatusCode.Aborted, call.GetStatus().StatusCode);
    }

    [Fact]
    public void GetStatus_CallInProgress_Throws()
    {
        using var call = fixture.Client.WaitForCancellationAsync(new EchoRequest { Text = $"in-progress-{Guid.NewGuid()}" }, new CallOptions(CancellationToken: Token));

        Assert.Throws<InvalidOperationException>(() => call.GetStatus());
    }
}
