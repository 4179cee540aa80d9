using Salsa.Ccr.Internal;

namespace Salsa.Ccr.Tests;

/// <summary>Interleave's promises where they are hardest to keep: teardown racing posters, one-shot children, discarding queues.</summary>
[Collection(RaceProbes.Collection)]
public sealed class InterleaveTests
{
    [Fact]
    public void Teardown_RacingManyPosters_NoHandlerAfterItAndEveryConsumedMessageRuns()
    {
        const int Posters = 4;
        const int PerPoster = 16;
        const int Trials = 1_000;
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 4 });
        using var start = new Barrier(Posters + 1);
        using var end = new Barrier(Posters + 1);
        Trial? trial = null;
        var posters = Enumerable.Range(0, Posters).Select(p => new Thread(() =>
        {
            for (var t = 0; t < Trials; t++)
            {
                start.SignalAndWait();
                for (var i = 0; i < PerPoster; i++)
                {
                    if (p == t % Posters && i == (t / Posters) % PerPoster)
                    {
                        trial!.Stop.Post(true);
                    }

                    trial!.Work.Post(i);
                }

                end.SignalAndWait();
            }
        })).ToArray();

        var late = 0;
        var lost = 0;
        using (RaceProbes.Widen(RaceProbe.InterleaveCommit))
        {
            foreach (var poster in posters)
            {
                poster.Start();
            }

            for (var t = 0; t < Trials; t++)
            {
                trial = new Trial();
                dispatcher.DefaultQueue.Activate(trial.Interleave);
                start.SignalAndWait();
                end.SignalAndWait();
                Assert.True(trial.TornDown.Wait(TestTimeouts.Hang), $"trial {t}: the teardown never ran");
                Quiesce(dispatcher);

                late += Volatile.Read(ref trial.StartedAfterTeardown);
                if (Volatile.Read(ref trial.Handled) + trial.Work.ItemCount != Posters * PerPoster)
                {
                    lost++;
                }
            }

            foreach (var poster in posters)
            {
                poster.Join();
            }
        }

        Assert.Equal((0, 0), (late, lost));
    }

    [Fact]
    public async Task OneShotReceiverInExclusiveGroup_FiresOnce()
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 2 });
        var port = new Port<int>();
        var fired = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
        var calls = 0;
        var receiver = Arbiter.Receive(false, port, (int m) => { Interlocked.Increment(ref calls); fired.TrySetResult(m); });
        dispatcher.DefaultQueue.Activate(Arbiter.Interleave(
            new TeardownReceiverGroup(), new ExclusiveReceiverGroup(receiver), new ConcurrentReceiverGroup()));

        port.Post(1);
        port.Post(2);
        port.Post(3);

        Assert.Equal(1, await fired.Task.OrHang());
        Quiesce(dispatcher);
        Assert.Equal(1, Volatile.Read(ref calls));
        Assert.Equal(2, port.ItemCount);
        Assert.False(receiver.IsActive);
    }

    [Fact]
    public async Task ChoiceInConcurrentGroup_FiresOnceForAllItsMessages()
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 2 });
        var left = new Port<int>();
        var right = new Port<string>();
        var fired = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var calls = 0;
        void Fire()
        {
            Interlocked.Increment(ref calls);
            fired.TrySetResult();
        }

        var choice = Arbiter.Choice(Arbiter.Receive(false, left, (int _) => Fire()), Arbiter.Receive(false, right, (string _) => Fire()));
        dispatcher.DefaultQueue.Activate(Arbiter.Interleave(
            new TeardownReceiverGroup(), new ExclusiveReceiverGroup(), new ConcurrentReceiverGroup(choice)));

        left.Post(1);
        left.Post(2);
        right.Post("a");

        await fired.Task.OrHang();
        Quiesce(dispatcher);
        Assert.Equal(1, Volatile.Read(ref calls));
        Assert.Equal((1, 1), (left.ItemCount, right.ItemCount));
        Assert.False(choice.IsActive);
    }

    [Fact]
    public async Task DiscardNewestQueue_DroppedHandlers_DoNotHoldBackTheTeardown()
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        var queue = dispatcher.CreateQueue("bounded", new DispatcherQueueOptions { Policy = QueuePolicy.DiscardNewest, MaxDepth = 2 });
        var work = new Port<int>();
        var stop = new Port<bool>();
        var handled = 0;
        var tornDown = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
        var interleave = Arbiter.Interleave(
            new TeardownReceiverGroup(Arbiter.Receive(false, stop, (bool _) => tornDown.SetResult(Volatile.Read(ref handled)))),
            new ExclusiveReceiverGroup(),
            new ConcurrentReceiverGroup(Arbiter.Receive(true, work, (int _) => Interlocked.Increment(ref handled))));
        queue.Activate(interleave);

        using (Block(dispatcher))
        {
            for (var i = 0; i < 5; i++)
            {
                work.Post(i);
            }
        }

        Quiesce(dispatcher, queue);
        Assert.Equal(3, queue.DiscardedCount);
        stop.Post(true);

        Assert.Equal(2, await tornDown.Task.OrHang());
        Assert.True(SpinWait.SpinUntil(() => !interleave.IsActive, TestTimeouts.Hang));
    }

    [Fact]
    public async Task DiscardOldestQueue_DroppedAdmittedExclusiveHandler_ReleasesTheInterleave()
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        var queue = dispatcher.CreateQueue("bounded", new DispatcherQueueOptions { Policy = QueuePolicy.DiscardOldest, MaxDepth = 1 });
        var port = new Port<int>();
        var release = new TaskCompletionSource();
        var firstEntered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var ran = new List<int>();
        var third = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var interleave = Arbiter.Interleave(
            new TeardownReceiverGroup(),
            new ExclusiveReceiverGroup(Arbiter.Receive(true, port, async (int m) =>
            {
                lock (ran)
                {
                    ran.Add(m);
                }

                if (m == 1)
                {
                    firstEntered.SetResult();
                    await release.Task.ConfigureAwait(false);
                }

                if (m == 3)
                {
                    third.SetResult();
                }
            })),
            new ConcurrentReceiverGroup());
        queue.Activate(interleave);

        port.Post(1);
        await firstEntered.Task.OrHang();
        port.Post(2);
        Quiesce(dispatcher, queue); // 2 reached the dispatcher and waits behind 1
        using (Block(dispatcher))
        {
            release.SetResult(); // 1 ends here, on this thread: 2 is admitted and queued behind the block
            port.Post(3); // the full queue drops its oldest task: the admitted 2
        }

        await third.Task.OrHang();
        Quiesce(dispatcher, queue);
        Assert.Equal([1, 3], ran);
        Assert.Equal(1, queue.DiscardedCount);
        Assert.Equal(0, interleave.RunningCount);
    }

    /// <summary>Returns once every dispatcher thread is idle at the same moment and nothing is queued.</summary>
    internal static void Quiesce(Dispatcher dispatcher, DispatcherQueue? other = null)
    {
        do
        {
            using var all = new Barrier(dispatcher.ThreadCount + 1);
            for (var i = 0; i < dispatcher.ThreadCount; i++)
            {
                Assert.True(dispatcher.DefaultQueue.Post(() => all.SignalAndWait(TestTimeouts.Hang)));
            }

            Assert.True(all.SignalAndWait(TestTimeouts.Hang));
        }
        while (dispatcher.DefaultQueue.Count > 0 || other?.Count > 0);
    }

    /// <summary>Holds the dispatcher's only thread until disposed.</summary>
    private static Releaser Block(Dispatcher dispatcher)
    {
        var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        dispatcher.DefaultQueue.Post(() => { started.Set(); gate.Wait(TestTimeouts.Hang); });
        Assert.True(started.Wait(TestTimeouts.Hang));
        return new Releaser(gate);
    }

    private sealed class Releaser(ManualResetEventSlim gate) : IDisposable
    {
        public void Dispose() => gate.Set();
    }

    private sealed class Trial
    {
        public readonly Port<int> Work = new();
        public readonly Port<bool> Stop = new();
        public readonly ManualResetEventSlim TornDown = new();
        public int Handled;
        public int StartedAfterTeardown;
        private int _tearingDown;

        public Trial()
        {
            Interleave = Arbiter.Interleave(
                new TeardownReceiverGroup(Arbiter.Receive(false, Stop, (bool _) =>
                {
                    Volatile.Write(ref _tearingDown, 1);
                    TornDown.Set();
                })),
                new ExclusiveReceiverGroup(),
                new ConcurrentReceiverGroup(Arbiter.Receive(true, Work, (int _) =>
                {
                    if (Volatile.Read(ref _tearingDown) != 0)
                    {
                        Interlocked.Increment(ref StartedAfterTeardown);
                    }

                    Interlocked.Increment(ref Handled);
                })));
        }

        public Interleave Interleave { get; }
    }
}
