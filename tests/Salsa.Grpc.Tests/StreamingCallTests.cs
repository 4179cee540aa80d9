using Salsa.Grpc.Tests.Echo;
using Salsa.Grpc.Tests.Support;

namespace Salsa.Grpc.Tests;

public sealed class StreamingCallTests(EchoServerFixture fixture) : IClassFixture<EchoServerFixture>
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task ServerStream_10000Messages_AllArriveInOrder()
    {
        using var call = fixture.Client.ServerStream(new EchoRequest { Text = "s", Count = 10_000 }, new CallOptions(CancellationToken: Token));

        var expected = 0;
        await foreach (var reply in call.ResponseStream)
        {
            Assert.Equal(expected++, reply.Index);
        }

        Assert.Equal(10_000, expected);
        Assert.Equal(StatusCode.OK, call.GetStatus().StatusCode);
    }

    [Fact]
    public async Task ServerStream_ZeroMessages_EndsWithOk()
    {
        using var call = fixture.Client.ServerStream(new EchoRequest { Count = 0 }, new CallOptions(CancellationToken: Token));

        Assert.False(await call.ResponseStream.MoveNext(Token));
        Assert.Equal(StatusCode.OK, call.GetStatus().StatusCode);
    }

    [Fact]
    public async Task ClientStream_ManyRequests_ServerSeesAllThenReplies()
    {
        using var call = fixture.Client.ClientStream(new CallOptions(CancellationToken: Token));
        for (var i = 0; i < 100; i++)
        {
            await call.RequestStream.WriteAsync(new EchoRequest { Text = (i % 10).ToString(System.Globalization.CultureInfo.InvariantCulture) }, Token);
        }

        await call.RequestStream.CompleteAsync();
        var reply = await call;

        Assert.Equal(100, reply.Index);
        Assert.Equal(string.Concat(Enumerable.Range(0, 100).Select(i => i % 10)), reply.Text);
    }

    [Fact]
    public async Task ClientStream_NoRequests_RepliesWithZero()
    {
        using var call = fixture.Client.ClientStream(new CallOptions(CancellationToken: Token));
        await call.RequestStream.CompleteAsync();

        var reply = await call;

        Assert.Equal(0, reply.Index);
    }

    [Fact]
    public async Task Duplex_PingPong_EachRequestAnsweredBeforeTheNext()
    {
        using var call = fixture.Client.Duplex(new CallOptions(CancellationToken: Token));
        for (var i = 0; i < 50; i++)
        {
            await call.RequestStream.WriteAsync(new EchoRequest { Text = $"ping {i}" }, Token);
            Assert.True(await call.ResponseStream.MoveNext(Token));
            Assert.Equal($"ping {i}", call.ResponseStream.Current.Text);
            Assert.Equal(i, call.ResponseStream.Current.Index);
        }

        await call.RequestStream.CompleteAsync();

        Assert.False(await call.ResponseStream.MoveNext(Token));
        Assert.Equal(StatusCode.OK, call.GetStatus().StatusCode);
    }

    [Fact]
    public async Task Duplex_WriteAllThenReadAll_AllRepliesArrive()
    {
        using var call = fixture.Client.Duplex(new CallOptions(CancellationToken: Token));
        var reading = Task.Run(async () =>
        {
            var texts = new List<string>();
            await foreach (var reply in call.ResponseStream.ReadAllAsync(Token))
            {
                texts.Add(reply.Text);
            }

            return texts;
        }, Token);

        for (var i = 0; i < 1000; i++)
        {
            await call.RequestStream.WriteAsync(new EchoRequest { Text = $"m{i}" }, Token);
        }

        await call.RequestStream.CompleteAsync();
        var texts = await reading;

        Assert.Equal(Enumerable.Range(0, 1000).Select(i => $"m{i}"), texts);
    }
}
