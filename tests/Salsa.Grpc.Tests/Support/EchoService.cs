using System.Text;
using Salsa.Grpc.Tests.Echo;

namespace Salsa.Grpc.Tests.Support;

/// <summary>The test implementation of salsa.test.v1.Echo; reports what it saw through <see cref="EchoProbe"/>.</summary>
[UnimplementedRpc("Unimplemented")]
[System.Diagnostics.CodeAnalysis.SuppressMessage("Performance", "CA1822:Mark members as static", Justification = "Service methods are bound as instance methods.")]
public sealed class EchoService(EchoProbe probe)
{
    public async Task<EchoReply> Unary(EchoRequest request, ServerCallContext context)
    {
        var echoed = new Metadata();
        foreach (var entry in context.RequestHeaders)
        {
            if (entry.Key.StartsWith("echo-", StringComparison.Ordinal))
            {
                echoed.Add(entry);
                context.ResponseTrailers.Add(entry);
            }
        }

        if (echoed.Count > 0)
        {
            await context.WriteResponseHeadersAsync(echoed);
        }

        var text = request.Text switch
        {
            "traceparent" => context.RequestHeaders.GetValue("traceparent") ?? "",
            "peer" => context.Peer,
            "method" => context.Method,
            _ => request.Text,
        };
        return new EchoReply { Text = text, Payload = request.Payload };
    }

    public async Task ServerStream(EchoRequest request, IServerStreamWriter<EchoReply> responses, ServerCallContext context)
    {
        if (request.Count < 0)
        {
            // One reply, then hold the stream open until the caller goes away.
            await responses.WriteAsync(new EchoReply { Text = request.Text });
            await WaitForCancellationAsync(request.Text, context);
            return;
        }

        for (var i = 0; i < request.Count; i++)
        {
            await responses.WriteAsync(new EchoReply { Text = request.Text, Index = i, Payload = request.Payload });
        }
    }

    public async Task<EchoReply> ClientStream(IAsyncStreamReader<EchoRequest> requests, ServerCallContext context)
    {
        var text = new StringBuilder();
        var count = 0;
        await foreach (var request in requests)
        {
            text.Append(request.Text);
            count++;
        }

        return new EchoReply { Text = text.ToString(), Index = count };
    }

    public async Task Duplex(IAsyncStreamReader<EchoRequest> requests, IServerStreamWriter<EchoReply> responses, ServerCallContext context)
    {
        var index = 0;
        await foreach (var request in requests.ReadAllAsync(context.CancellationToken))
        {
            await responses.WriteAsync(new EchoReply { Text = request.Text, Index = index++ });
        }
    }

    public async Task<EchoReply> WaitForCancellation(EchoRequest request, ServerCallContext context)
    {
        await WaitForCancellationAsync(request.Text, context);
        return new EchoReply { Text = "unreachable" };
    }

    public Task<EchoReply> Fail(EchoRequest request, ServerCallContext context) =>
        throw new RpcException(
            new Status((StatusCode)request.Count, request.Text),
            new Metadata { { "fail-reason", "on-purpose" }, { "fail-bin", [1, 2, 3, 250] } });

    public ValueTask<EchoReply> Throw(EchoRequest request, ServerCallContext context) =>
        throw new InvalidOperationException(request.Text);

    private async Task WaitForCancellationAsync(string key, ServerCallContext context)
    {
        probe.Started(key).TrySetResult();
        var cancelled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using (context.CancellationToken.Register(() => cancelled.TrySetResult()))
        {
            await cancelled.Task;
        }

        probe.Cancelled(key).TrySetResult(context.Deadline != DateTime.MaxValue);
        context.CancellationToken.ThrowIfCancellationRequested();
    }
}
