using Salsa.Grpc.Tests.Echo;
using Salsa.Grpc.Tests.Support;

namespace Salsa.Grpc.Tests;

public sealed class CancellationTests(EchoServerFixture fixture) : IClassFixture<EchoServerFixture>
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Unary_DeadlineExceeded_ClientGetsDeadlineExceededAndServerTokenFires()
    {
        var key = $"deadline-{Guid.NewGuid()}";
        using var call = fixture.Client.WaitForCancellationAsync(new EchoRequest { Text = key }, new CallOptions(Deadline: DateTime.UtcNow.AddMilliseconds(300)));

        var ex = await Assert.ThrowsAsync<RpcException>(() => call.ResponseAsync);

        Assert.Equal(StatusCode.DeadlineExceeded, ex.StatusCode);
        // The server's token fires through its own deadline timer or the client's reset at its
        // deadline, whichever comes first; WireProtocolTests covers the server timer alone.
        Assert.True(await fixture.Server.Probe.Cancelled(key).Task.WaitAsync(Token), "grpc-timeout did not reach the server");
    }

    [Fact]
    public async Task Unary_DeadlineAlreadyPassed_FailsWithoutCallingServer()
    {
        var ex = await Assert.ThrowsAsync<RpcException>(() =>
            fixture.Client.UnaryAsync(new EchoRequest { Text = "late" }, new CallOptions(Deadline: DateTime.UtcNow.AddSeconds(-1))).ResponseAsync);

        Assert.Equal(StatusCode.DeadlineExceeded, ex.StatusCode);
    }

    [Fact]
    public async Task Unary_GenerousDeadline_Succeeds()
    {
        var reply = await fixture.Client.UnaryAsync(new EchoRequest { Text = "in time" }, new CallOptions(Deadline: DateTime.UtcNow.AddMinutes(5), CancellationToken: Token));

        Assert.Equal("in time", reply.Text);
    }

    [Fact]
    public async Task Unary_CallerCancels_ServerTokenFiresAndClientGetsCancelled()
    {
        var key = $"cancel-{Guid.NewGuid()}";
        using var cancellation = new CancellationTokenSource();
        using var call = fixture.Client.WaitForCancellationAsync(new EchoRequest { Text = key }, new CallOptions(CancellationToken: cancellation.Token));
        await fixture.Server.Probe.Started(key).Task.WaitAsync(Token);

        await cancellation.CancelAsync();
        var ex = await Assert.ThrowsAsync<RpcException>(() => call.ResponseAsync);
        var hadDeadline = await fixture.Server.Probe.Cancelled(key).Task.WaitAsync(Token);

        Assert.Equal(StatusCode.Cancelled, ex.StatusCode);
        Assert.False(hadDeadline);
    }

    [Fact]
    public async Task Unary_DisposedInFlight_ServerTokenFires()
    {
        var key = $"dispose-{Guid.NewGuid()}";
        var call = fixture.Client.WaitForCancellationAsync(new EchoRequest { Text = key });
        await fixture.Server.Probe.Started(key).Task.WaitAsync(Token);

        call.Dispose();
        var ex = await Assert.ThrowsAsync<RpcException>(() => call.ResponseAsync);
        await fixture.Server.Probe.Cancelled(key).Task.WaitAsync(Token);

        Assert.Equal(StatusCode.Cancelled, ex.StatusCode);
        Assert.Equal(StatusCode.Cancelled, call.GetStatus().StatusCode);
    }

    [Fact]
    public async Task ServerStream_CallerDisposesMidStream_ServerTokenFires()
    {
        var key = $"stream-{Guid.NewGuid()}";
        var call = fixture.Client.ServerStream(new EchoRequest { Text = key, Count = -1 }, new CallOptions(CancellationToken: Token));
        Assert.True(await call.ResponseStream.MoveNext(Token));
        await fixture.Server.Probe.Started(key).Task.WaitAsync(Token);

        call.Dispose();
        await fixture.Server.Probe.Cancelled(key).Task.WaitAsync(Token);
        var ex = await Assert.ThrowsAsync<RpcException>(() => call.ResponseStream.MoveNext(Token));

        Assert.Equal(StatusCode.Cancelled, ex.StatusCode);
    }

    [Fact]
    public async Task ServerStream_MoveNextTokenCancelled_CallCancelled()
    {
        var key = $"movenext-{Guid.NewGuid()}";
        using var call = fixture.Client.ServerStream(new EchoRequest { Text = key, Count = -1 });
        Assert.True(await call.ResponseStream.MoveNext(Token));
        using var cancellation = new CancellationTokenSource();

        var next = call.ResponseStream.MoveNext(cancellation.Token);
        await cancellation.CancelAsync();
        var ex = await Assert.ThrowsAsync<RpcException>(() => next);
        await fixture.Server.Probe.Cancelled(key).Task.WaitAsync(Token);

        Assert.Equal(StatusCode.Cancelled, ex.StatusCode);
    }
}
