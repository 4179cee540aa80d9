using System.Diagnostics;
using Salsa.Grpc.Tests.Echo;
using Salsa.Grpc.Tests.Support;
using Salsa.Testing;

namespace Salsa.Grpc.Tests;

public sealed class TracingTests(EchoServerFixture fixture) : IClassFixture<EchoServerFixture>
{
    private static readonly ActivitySource TestSource = new("Salsa.Grpc.Tests");

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Unary_UnderCallerActivity_ServerActivityContinuesTheTrace()
    {
        using var recorder = new ActivityRecorder(GrpcDiagnostics.ActivitySourceName, TestSource.Name);
        EchoReply reply;
        ActivityTraceId traceId;
        using (var parent = TestSource.StartActivity("caller"))
        {
            Assert.NotNull(parent);
            traceId = parent.TraceId;
            reply = await fixture.Client.UnaryAsync(new EchoRequest { Text = "traceparent" }, new CallOptions(CancellationToken: Token));
        }

        var server = await recorder.WaitForAsync(a => a.TraceId == traceId && a.Kind == ActivityKind.Server, Token);
        var client = await recorder.WaitForAsync(a => a.TraceId == traceId && a.Kind == ActivityKind.Client, Token);

        Assert.Contains(traceId.ToHexString(), reply.Text, StringComparison.Ordinal);
        Assert.Equal("salsa.test.v1.Echo/Unary", server.DisplayName);
        Assert.Equal("grpc", server.GetTagItem("rpc.system"));
        Assert.Equal("salsa.test.v1.Echo", server.GetTagItem("rpc.service"));
        Assert.Equal("Unary", server.GetTagItem("rpc.method"));
        Assert.Equal(0, server.GetTagItem("rpc.grpc.status_code"));
        Assert.Equal(0, client.GetTagItem("rpc.grpc.status_code"));
    }

    [Fact]
    public async Task Unary_NoGrpcListener_HttpClientStillPropagatesCallerTrace()
    {
        using var recorder = new ActivityRecorder(TestSource.Name);
        using var parent = TestSource.StartActivity("caller");
        Assert.NotNull(parent);

        var reply = await fixture.Client.UnaryAsync(new EchoRequest { Text = "traceparent" }, new CallOptions(CancellationToken: Token));

        Assert.Contains(parent.TraceId.ToHexString(), reply.Text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Unary_HostingActivityPresent_ServerActivityNestsUnderIt()
    {
        using var recorder = new ActivityRecorder(GrpcDiagnostics.ActivitySourceName, TestSource.Name, "Microsoft.AspNetCore");
        ActivityTraceId traceId;
        using (var parent = TestSource.StartActivity("caller"))
        {
            traceId = parent!.TraceId;
            await fixture.Client.FailAsync(new EchoRequest { Count = (int)StatusCode.Internal }, new CallOptions(CancellationToken: Token)).ResponseAsync
                .ContinueWith(_ => { }, Token, TaskContinuationOptions.None, TaskScheduler.Default);
        }

        var server = await recorder.WaitForAsync(a => a.TraceId == traceId && a.Source.Name == GrpcDiagnostics.ActivitySourceName && a.Kind == ActivityKind.Server, Token);
        var hosting = await recorder.WaitForAsync(a => a.TraceId == traceId && a.Source.Name == "Microsoft.AspNetCore", Token);

        Assert.Equal(hosting.SpanId, server.ParentSpanId);
        Assert.Equal(13, server.GetTagItem("rpc.grpc.status_code"));
        Assert.Equal(ActivityStatusCode.Error, server.Status);
    }
}
