using System.Diagnostics;
using System.Globalization;
using Microsoft.Extensions.DependencyInjection;
using Salsa.Grpc.Tests.Echo;
using Salsa.Grpc.Tests.Support;

namespace Salsa.Grpc.Tests;

public sealed class ObserverTests
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Observer_AddsTimingTrailer_ClientReceivesItOnSuccessAndFailure()
    {
        await using var server = await GrpcTestServer.StartAsync(services: s => s.AddSingleton<IServerCallObserver, TimingObserver>());
        using var channel = server.CreateChannel();
        var client = new EchoClient(channel);

        using var ok = client.UnaryAsync(new EchoRequest { Text = "timed" }, new CallOptions(CancellationToken: Token));
        await ok;
        var failed = await Assert.ThrowsAsync<RpcException>(() => client.FailAsync(new EchoRequest { Count = (int)StatusCode.Aborted }, new CallOptions(CancellationToken: Token)).ResponseAsync);

        Assert.StartsWith("compute;dur=", ok.GetTrailers().GetValue("server-timing"), StringComparison.Ordinal);
        Assert.Null(ok.GetTrailers().GetValue("observed-status"));
        Assert.Equal("Aborted", failed.Trailers.GetValue("observed-status"));
    }

    [Fact]
    public async Task Observer_ThrowsRpcExceptionOnStart_CallRejectedWithItsStatus()
    {
        await using var server = await GrpcTestServer.StartAsync(services: s => s.AddSingleton<IServerCallObserver, GateObserver>());
        using var channel = server.CreateChannel();
        var client = new EchoClient(channel);

        var ex = await Assert.ThrowsAsync<RpcException>(() => client.UnaryAsync(new EchoRequest(), new CallOptions(CancellationToken: Token)).ResponseAsync);
        var allowed = await client.UnaryAsync(new EchoRequest { Text = "in" }, new CallOptions(new Metadata { { "key", "open" } }, CancellationToken: Token));

        Assert.Equal(StatusCode.PermissionDenied, ex.StatusCode);
        Assert.Equal("in", allowed.Text);
    }

    private sealed class TimingObserver : IServerCallObserver
    {
        public void OnCallStarting(ServerCallContext context)
        {
        }

        public void OnCallCompleting(ServerCallContext context, Status status)
        {
            var elapsed = Stopwatch.GetElapsedTime(context.StartTimestamp);
            context.ResponseTrailers.Add("server-timing", string.Create(CultureInfo.InvariantCulture, $"compute;dur={elapsed.TotalMilliseconds:0.###}"));
            if (status.StatusCode != StatusCode.OK)
            {
                context.ResponseTrailers.Add("observed-status", status.StatusCode.ToString());
            }
        }
    }

    private sealed class GateObserver : IServerCallObserver
    {
        public void OnCallStarting(ServerCallContext context)
        {
            if (context.RequestHeaders.GetValue("key") != "open")
            {
                throw new RpcException(new Status(StatusCode.PermissionDenied, "No key."));
            }
        }

        public void OnCallCompleting(ServerCallContext context, Status status)
        {
        }
    }
}
