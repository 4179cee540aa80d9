using System.Collections.Concurrent;
using System.Diagnostics;
using Salsa.Grpc.Tests.Echo;
using Salsa.Grpc.Tests.Support;

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

        var server = await recorder.WaitForAsync(a => a.TraceId == traceId && a.Kind == ActivityKind.Server);
        var client = await recorder.WaitForAsync(a => a.TraceId == traceId && a.Kind == ActivityKind.Client);

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

        var server = await recorder.WaitForAsync(a => a.TraceId == traceId && a.Source.Name == GrpcDiagnostics.ActivitySourceName && a.Kind == ActivityKind.Server);
        var hosting = await recorder.WaitForAsync(a => a.TraceId == traceId && a.Source.Name == "Microsoft.AspNetCore");

        Assert.Equal(hosting.SpanId, server.ParentSpanId);
        Assert.Equal(13, server.GetTagItem("rpc.grpc.status_code"));
        Assert.Equal(ActivityStatusCode.Error, server.Status);
    }

    /// <summary>Records stopped activities of some sources; global, so matches are filtered by trace id.</summary>
    private sealed class ActivityRecorder : IDisposable
    {
        // Design: activities stop on client and server threads and are queued; the test waits on
        // a semaphore released once per activity and rescans the queue, so no stop is missed and
        // nothing blocks a server thread.
        private readonly ActivityListener _listener;
        private readonly ConcurrentQueue<Activity> _stopped = new();
        private readonly SemaphoreSlim _signal = new(0);

        public ActivityRecorder(params string[] sources)
        {
            _listener = new ActivityListener
            {
                ShouldListenTo = source => sources.Contains(source.Name),
                Sample = (ref _) => ActivitySamplingResult.AllDataAndRecorded,
                ActivityStopped = activity =>
                {
                    _stopped.Enqueue(activity);
                    _signal.Release();
                },
            };
            ActivitySource.AddActivityListener(_listener);
        }

        public async Task<Activity> WaitForAsync(Func<Activity, bool> match)
        {
            while (true)
            {
                if (_stopped.FirstOrDefault(match) is { } found)
                {
                    return found;
                }

                await _signal.WaitAsync(Token);
            }
        }

        public void Dispose()
        {
            _listener.Dispose();
            _signal.Dispose();
        }
    }
}
