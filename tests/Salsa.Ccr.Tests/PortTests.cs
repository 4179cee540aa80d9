namespace Salsa.Ccr.Tests;

public sealed class PortTests
{
    [Fact]
    public void Test_WithoutReceivers_ReturnsMessagesInPostOrder()
    {
        var port = new Port<int>();
        port.Post(1);
        port.Post(2);

        Assert.True(port.Test(out var first));
        Assert.True(port.Test(out var second));
        Assert.False(port.Test(out _));
        Assert.Equal((1, 2), (first, second));
    }

    [Fact]
    public async Task ReceiveAsync_MessagePostedLater_CompletesWithIt()
    {
        var port = new Port<string>();

        var receive = port.ReceiveAsync(TestContext.Current.CancellationToken);
        Assert.False(receive.IsCompleted);
        port.Post("hello");

        Assert.Equal("hello", await receive.OrHang());
        Assert.Equal(0, port.ItemCount);
    }

    [Fact]
    public async Task ReceiveAsync_Cancelled_ThrowsAndLeavesLaterMessagesInThePort()
    {
        var port = new Port<int>();
        using var cancellation = new CancellationTokenSource();

        var receive = port.ReceiveAsync(cancellation.Token);
        await cancellation.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () => await receive);
        port.Post(7);
        Assert.True(port.Test(out var left));
        Assert.Equal(7, left);
    }

    [Fact]
    public async Task Post_ManyPostersMillionsOfMessages_EachDeliveredExactlyOnce()
    {
        const int Posters = 8;
        const int PerPoster = 250_000;
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 2 });
        var port = new Port<int>();
        var seen = new int[Posters * PerPoster];
        var received = 0;
        var all = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        dispatcher.DefaultQueue.Activate(Arbiter.Receive(true, port, (int message) =>
        {
            Interlocked.Increment(ref seen[message]);
            if (Interlocked.Increment(ref received) == seen.Length)
            {
                all.SetResult();
            }
        }));

        using var start = new Barrier(Posters);
        var posters = Enumerable.Range(0, Posters).Select(p => Task.Factory.StartNew(() =>
        {
            start.SignalAndWait();
            for (var i = 0; i < PerPoster; i++)
            {
                port.Post(p * PerPoster + i);
            }
        }, TaskCreationOptions.LongRunning)).ToArray();

        await Task.WhenAll(posters).OrHang();
        await all.Task.OrHang();
        Assert.All(seen, count => Assert.Equal(1, count));
        Assert.Equal(0, port.ItemCount);
    }

    [Fact]
    public async Task ReceiveAsync_CancelRacingAPost_EitherReceivesTheItemOrLeavesItInThePort()
    {
        var outcomes = new int[2];
        for (var trial = 0; trial < 5_000; trial++)
        {
            var port = new Port<int>();
            using var cancellation = new CancellationTokenSource();
            var receive = port.ReceiveAsync(cancellation.Token).AsTask();
            using var start = new Barrier(2);
            var item = trial;
            // Each side gets a head start in turn (on a loaded machine one side alone won 5,000 times),
            // and a random spin so the two still meet within microseconds of each other.
            var (postLater, cancelLater) = trial % 2 == 0 ? (20_000, 0) : (0, 20_000);
            var poster = Task.Run(() => { start.SignalAndWait(); Thread.SpinWait(postLater + Random.Shared.Next(2_000)); port.Post(item); });
            var canceller = Task.Run(() => { start.SignalAndWait(); Thread.SpinWait(cancelLater + Random.Shared.Next(2_000)); cancellation.Cancel(); });
            await Task.WhenAll(poster, canceller).OrHang();

            try
            {
                Assert.Equal(trial, await receive.OrHang());
                Assert.Equal(0, port.ItemCount);
                outcomes[0]++;
            }
            catch (OperationCanceledException)
            {
                Assert.True(port.Test(out var left), $"trial {trial}: the receive was cancelled and the item is gone");
                Assert.Equal(trial, left);
                outcomes[1]++;
            }
        }

        // Both sides of the race happened.
        Assert.All(outcomes, count => Assert.True(count > 0, $"received {outcomes[0]}, cancelled {outcomes[1]}"));
    }
}
