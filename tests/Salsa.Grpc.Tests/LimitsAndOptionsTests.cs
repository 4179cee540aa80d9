using Google.Protobuf;
using Salsa.Grpc.Tests.Echo;
using Salsa.Grpc.Tests.Support;

namespace Salsa.Grpc.Tests;

public sealed class LimitsAndOptionsTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Unary_RequestOverServerMaxSize_ResourceExhaustedAndServerKeepsServing()
    {
        await using var server = await GrpcTestServer.StartAsync(options => options.MaxReceiveMessageSize = 1024);
        using var channel = server.CreateChannel();
        var client = new EchoClient(channel);

        var ex = await Assert.ThrowsAsync<RpcException>(() =>
            client.UnaryAsync(new EchoRequest { Payload = ByteString.CopyFrom(new byte[64 * 1024]) }, new CallOptions(CancellationToken: Token)).ResponseAsync);
        var next = await client.UnaryAsync(new EchoRequest { Text = "small" }, new CallOptions(CancellationToken: Token));

        Assert.Equal(StatusCode.ResourceExhausted, ex.StatusCode);
        Assert.Equal("small", next.Text);
    }

    [Fact]
    public async Task Unary_RequestOverDefault4MB_ResourceExhausted()
    {
        await using var server = await GrpcTestServer.StartAsync();
        using var channel = server.CreateChannel();

        var ex = await Assert.ThrowsAsync<RpcException>(() =>
            new EchoClient(channel).UnaryAsync(new EchoRequest { Payload = ByteString.CopyFrom(new byte[5 * 1024 * 1024]) }, new CallOptions(CancellationToken: Token)).ResponseAsync);

        Assert.Equal(StatusCode.ResourceExhausted, ex.StatusCode);
    }

    [Fact]
    public async Task Unary_RaisedServerLimit_LargeMessageRoundTrips()
    {
        await using var server = await GrpcTestServer.StartAsync(options => options.MaxReceiveMessageSize = 16 * 1024 * 1024);
        using var channel = server.CreateChannel(new GrpcChannelOptions { MaxReceiveMessageSize = 16 * 1024 * 1024 });
        var payload = new byte[10 * 1024 * 1024];
        new Random(7).NextBytes(payload);

        var reply = await new EchoClient(channel).UnaryAsync(new EchoRequest { Payload = ByteString.CopyFrom(payload) }, new CallOptions(CancellationToken: Token));

        Assert.Equal(payload, reply.Payload.ToByteArray());
    }

    [Fact]
    public async Task Unary_ResponseOverClientMaxSize_ResourceExhausted()
    {
        await using var server = await GrpcTestServer.StartAsync();
        using var channel = server.CreateChannel(new GrpcChannelOptions { MaxReceiveMessageSize = 1024 });

        var ex = await Assert.ThrowsAsync<RpcException>(() =>
            new EchoClient(channel).UnaryAsync(new EchoRequest { Payload = ByteString.CopyFrom(new byte[4096]) }, new CallOptions(CancellationToken: Token)).ResponseAsync);

        Assert.Equal(StatusCode.ResourceExhausted, ex.StatusCode);
    }

    [Fact]
    public async Task Unary_RequestOverClientMaxSendSize_ResourceExhaustedWithoutSending()
    {
        await using var server = await GrpcTestServer.StartAsync();
        using var channel = server.CreateChannel(new GrpcChannelOptions { MaxSendMessageSize = 100 });

        var ex = await Assert.ThrowsAsync<RpcException>(() =>
            new EchoClient(channel).UnaryAsync(new EchoRequest { Payload = ByteString.CopyFrom(new byte[200]) }, new CallOptions(CancellationToken: Token)).ResponseAsync);

        Assert.Equal(StatusCode.ResourceExhausted, ex.StatusCode);
    }

    [Fact]
    public async Task ClientStream_OneRequestOverServerMaxSize_ResourceExhausted()
    {
        await using var server = await GrpcTestServer.StartAsync(options => options.MaxReceiveMessageSize = 1024);
        using var channel = server.CreateChannel();
        using var call = new EchoClient(channel).ClientStream(new CallOptions(CancellationToken: Token));

        await call.RequestStream.WriteAsync(new EchoRequest { Text = "fine" }, Token);
        try
        {
            await call.RequestStream.WriteAsync(new EchoRequest { Payload = ByteString.CopyFrom(new byte[4096]) }, Token);
            await call.RequestStream.CompleteAsync();
        }
        catch (RpcException)
        {
            // The server may end the call before the write completes; the call's status says why.
        }

        var ex = await Assert.ThrowsAsync<RpcException>(() => call.ResponseAsync);

        Assert.Equal(StatusCode.ResourceExhausted, ex.StatusCode);
    }

    [Fact]
    public async Task Unary_IncludeExceptionDetails_DetailCarriesExceptionMessage()
    {
        await using var server = await GrpcTestServer.StartAsync(options => options.IncludeExceptionDetails = true);
        using var channel = server.CreateChannel();

        var ex = await Assert.ThrowsAsync<RpcException>(() =>
            new EchoClient(channel).ThrowAsync(new EchoRequest { Text = "visible" }, new CallOptions(CancellationToken: Token)).ResponseAsync);

        Assert.Equal(StatusCode.Unknown, ex.StatusCode);
        Assert.Contains("InvalidOperationException: visible", ex.Status.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Unary_ExceptionMapper_MapsApplicationExceptionToStatusAndTrailers()
    {
        await using var server = await GrpcTestServer.StartAsync(options => options.ExceptionMapper = exception =>
            exception is InvalidOperationException ? new RpcException(new Status(StatusCode.FailedPrecondition, exception.Message), new Metadata { { "mapped", "yes" } }) : null);
        using var channel = server.CreateChannel();

        var ex = await Assert.ThrowsAsync<RpcException>(() =>
            new EchoClient(channel).ThrowAsync(new EchoRequest { Text = "not now" }, new CallOptions(CancellationToken: Token)).ResponseAsync);

        Assert.Equal(StatusCode.FailedPrecondition, ex.StatusCode);
        Assert.Equal("not now", ex.Status.Detail);
        Assert.Equal("yes", ex.Trailers.GetValue("mapped"));
    }

    [Fact]
    public async Task UnaryAsync_NothingListening_Unavailable()
    {
        int port;
        await using (var server = await GrpcTestServer.StartAsync())
        {
            port = new Uri(server.Address).Port;
        }

        using var channel = GrpcChannel.ForAddress($"http://127.0.0.1:{port}");
        var ex = await Assert.ThrowsAsync<RpcException>(() =>
            new EchoClient(channel).UnaryAsync(new EchoRequest(), new CallOptions(CancellationToken: Token)).ResponseAsync);

        Assert.Equal(StatusCode.Unavailable, ex.StatusCode);
    }
}
