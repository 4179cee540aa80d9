using Microsoft.Extensions.Time.Testing;

namespace Salsa.Ccr.Tests;

public sealed class ArbiterTests : IDisposable
{
    private readonly Dispatcher _dispatcher = new(new DispatcherOptions { ThreadCount = 4 });

    private DispatcherQueue Queue => _dispatcher.DefaultQueue;

    public void Dispose() => _dispatcher.Dispose();

    [Fact]
    public async Task Receive_OneShot_FiresOnceAndLeavesLaterMessages()
    {
        var port = new Port<int>();
        var fired = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
        var count = 0;
        Queue.Activate(Arbiter.Receive(false, port, (int m) => { Interlocked.Increment(ref count); fired.TrySetResult(m); }));

        port.Post(1);
        port.Post(2);

        Assert.Equal(1, await fired.Task.OrHang());
        Assert.True(port.Test(out var left));
        Assert.Equal(2, left);
        Assert.Equal(1, Volatile.Read(ref count));
    }

    [Fact]
    public async Task Receive_Persistent_FiresForEveryMessage()
    {
        var port = new Port<int>();
        var sum = 0;
        var done = new CountdownEvent(100);
        Queue.Activate(Arbiter.Receive(true, port, (int m) => { Interlocked.Add(ref sum, m); done.Signal(); }));

        for (var i = 1; i <= 100; i++)
        {
            port.Post(i);
        }

        Assert.True(done.Wait(TestTimeouts.Hang));
        Assert.Equal(5050, Volatile.Read(ref sum));
        await Task.CompletedTask;
    }

    [Fact]
    public async Task Receive_MessagesPostedBeforeActivation_AreDelivered()
    {
        var port = new Port<string>();
        port.Post("early");
        var fired = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);

        Queue.Activate(Arbiter.Receive(false, port, (string m) => fired.SetResult(m)));

        Assert.Equal("early", await fired.Task.OrHang());
    }

    [Theory]
    [InlineData(1)]
    [InlineData(3)]
    public async Task MultipleItemReceive_CountItems_FiresOnlyWhenAllArrived(int count)
    {
        var port = new Port<int>();
        var fired = new TaskCompletionSource<int[]>(TaskCreationOptions.RunContinuationsAsynchronously);
        Queue.Activate(Arbiter.MultipleItemReceive(false, port, count, (int[] items) => fired.SetResult(items)));

        for (var i = 0; i < count - 1; i++)
        {
            port.Post(i);
        }

        Assert.False(fired.Task.IsCompleted);
        Assert.Equal(count - 1, port.ItemCount);
        port.Post(count - 1);

        var items = await fired.Task.OrHang();
        Assert.Equal(Enumerable.Range(0, count), items);
    }

    [Fact]
    public async Task MultiplePortReceive_OneFromEachPort_HandlerGetsThemInPortOrder()
    {
        var ports = new[] { new Port<int>(), new Port<int>(), new Port<int>() };
        var fired = new TaskCompletionSource<int[]>(TaskCreationOptions.RunContinuationsAsynchronously);
        Queue.Activate(Arbiter.MultiplePortReceive(false, ports, (int[] items) => fired.SetResult(items)));

        ports[2].Post(30);
        ports[0].Post(10);
        ports[0].Post(11);
        Assert.False(fired.Task.IsCompleted);
        ports[1].Post(20);

        var items = await fired.Task.OrHang();
        Assert.Equal([10, 20, 30], items);
        Assert.Equal(1, ports[0].ItemCount);
    }

    [Fact]
    public async Task JoinedReceive_TwoTypes_PairsOneOfEach()
    {
        var numbers = new Port<int>();
        var words = new Port<string>();
        var pairs = new List<(int, string)>();
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Queue.Activate(Arbiter.JoinedReceive(true, numbers, words, (int n, string w) =>
        {
            lock (pairs)
            {
                pairs.Add((n, w));
                if (pairs.Count == 3)
                {
                    done.SetResult();
                }
            }
        }));

        numbers.Post(1);
        numbers.Post(2);
        words.Post("a");
        numbers.Post(3);
        words.Post("b");
        words.Post("c");

        await done.Task.OrHang();
        Assert.Equal([(1, "a"), (2, "b"), (3, "c")], pairs.OrderBy(p => p.Item1));
    }

    /// <summary>The same port twice: a one-shot join waits for two items and gets both (it once fired on one, with a value never posted).</summary>
    [Fact]
    public async Task JoinedReceive_SamePortTwice_JoinsTwoOfItsItems()
    {
        var port = new Port<string>();
        var calls = new List<(string, string)>();
        var fired = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Queue.Activate(Arbiter.JoinedReceive(false, port, port, (string a, string b) =>
        {
            lock (calls)
            {
                calls.Add((a, b));
            }

            fired.TrySetResult();
        }));

        // A join commits on the poster's thread, inside Post: had it fired, the item would be gone already.
        port.Post("only");
        Assert.Equal(1, port.ItemCount);

        port.Post("second");
        port.Post("third");
        await fired.Task.OrHang();
        Assert.Equal([("only", "second")], calls); // one-shot: it cannot commit twice
        Assert.Equal(1, port.ItemCount); // one-shot: the third stays
    }

    [Fact]
    public async Task JoinedReceive_SamePortTwicePersistent_PairsEveryTwoInOrder()
    {
        var port = new Port<int>();
        var pairs = new List<(int, int)>();
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Queue.Activate(Arbiter.JoinedReceive(true, port, port, (int a, int b) =>
        {
            lock (pairs)
            {
                pairs.Add((a, b));
                if (pairs.Count == 3)
                {
                    done.SetResult();
                }
            }
        }));

        for (var i = 1; i <= 6; i++)
        {
            port.Post(i);
        }

        await done.Task.OrHang();
        Assert.Equal([(1, 2), (3, 4), (5, 6)], pairs.OrderBy(p => p.Item1)); // handlers may run concurrently; each pair is two consecutive items
    }

    /// <summary>
    /// Receives that complete as they are activated (an item waiting, a join's leg on the port so the
    /// receive takes the arbiter path) release their long-lived token's registration: 100,000 of them
    /// held about 19 MB before.
    /// </summary>
    [Fact]
    public async Task ReceiveAsync_CompletedAtActivation_KeepsNoTokenRegistration()
    {
        var port = new Port<int>();
        Queue.Activate(Arbiter.JoinedReceive(true, port, new Port<int>(), (int _, int _) => { })); // never fires; leaves items in the port
        using var lifetime = new CancellationTokenSource();
        async Task Receive(int count)
        {
            for (var i = 0; i < count; i++)
            {
                port.Post(i);
                Assert.Equal(i, await port.ReceiveAsync(lifetime.Token));
            }
        }

        await Receive(1_000);

        // The heap is the process's: the other test classes allocate beside this one. A leak grows the
        // heap on every round (about 19 MB), noise does not, so the smallest growth of three rounds is
        // what the receives retain.
        var grown = long.MaxValue;
        for (var round = 0; round < 3; round++)
        {
            var before = GC.GetTotalMemory(forceFullCollection: true);
            await Receive(100_000);
            grown = Math.Min(grown, GC.GetTotalMemory(forceFullCollection: true) - before);
        }

        Assert.True(grown < 4_000_000, $"{grown:N0} bytes retained by 100,000 completed receives (the least of three rounds)");
        GC.KeepAlive(lifetime);
    }

    /// <summary>One join, or two persistent joins on the same two ports: every item is taken once, by one of them.</summary>
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    public async Task JoinedReceive_ManyConcurrentPosters_NoMessageLostOrPairedTwice(int joins)
    {
        const int N = 20_000;
        var left = new Port<int>();
        var right = new Port<int>();
        var seenLeft = new int[N];
        var seenRight = new int[N];
        var pairs = 0;
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        for (var j = 0; j < joins; j++)
        {
            Queue.Activate(Arbiter.JoinedReceive(true, left, right, (int l, int r) =>
            {
                Interlocked.Increment(ref seenLeft[l]);
                Interlocked.Increment(ref seenRight[r]);
                if (Interlocked.Increment(ref pairs) == N)
                {
                    done.SetResult();
                }
            }));
        }

        await Task.WhenAll(
            Task.Run(() => { for (var i = 0; i < N; i++) { left.Post(i); } }, TestContext.Current.CancellationToken),
            Task.Run(() => { for (var i = 0; i < N; i++) { right.Post(i); } }, TestContext.Current.CancellationToken)).OrHang();

        await done.Task.OrHang();
        Assert.All(seenLeft, c => Assert.Equal(1, c));
        Assert.All(seenRight, c => Assert.Equal(1, c));
        Assert.Equal((0, 0), (left.ItemCount, right.ItemCount));
    }

    [Fact]
    public async Task Choice_FirstBranchWins_OtherBranchConsumesNothing()
    {
        var ports = new PortSet<int, string>();
        var winner = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        Queue.Activate(Arbiter.Choice(ports, n => winner.SetResult($"int {n}"), s => winner.SetResult($"string {s}")));

        ports.Post("first");
        Assert.Equal("string first", await winner.Task.OrHang());
        ports.Post(5);
        ports.Post("second");

        Assert.True(ports.P0.Test(out var n));
        Assert.True(ports.P1.Test(out var s));
        Assert.Equal((5, "second"), (n, s));
    }

    [Fact]
    public async Task Choice_MessageRacingATimeout_OnlyOneFires()
    {
        var clock = new FakeTimeProvider();
        var reply = new Port<int>();
        using var timeout = new TimeoutPort(TimeSpan.FromSeconds(5), clock);
        var outcome = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        var fired = 0;
        Queue.Activate(Arbiter.Choice(
            Arbiter.Receive(false, reply, (int r) => { Interlocked.Increment(ref fired); outcome.SetResult($"reply {r}"); }),
            Arbiter.Receive(false, timeout, (DateTimeOffset _) => { Interlocked.Increment(ref fired); outcome.SetResult("timed out"); })));

        clock.Advance(TimeSpan.FromSeconds(4));
        Assert.False(outcome.Task.IsCompleted);
        clock.Advance(TimeSpan.FromSeconds(1));
        Assert.Equal("timed out", await outcome.Task.OrHang());
        reply.Post(9);

        Assert.True(reply.Test(out _));
        Assert.Equal(1, Volatile.Read(ref fired));
    }

    [Fact]
    public void Choice_PersistentBranch_IsRejected()
    {
        var port = new Port<int>();
        Assert.Throws<ArgumentException>(() => Arbiter.Choice(Arbiter.Receive(true, port, (int _) => { })));
    }

    [Fact]
    public async Task Interleave_ExclusiveHandlers_NeverOverlapAnything()
    {
        const int Messages = 4_000;
        var concurrentPort = new Port<int>();
        var exclusivePort = new Port<int>();
        var running = 0;
        var exclusiveRunning = 0;
        var violations = 0;
        var maxConcurrent = 0;
        var handled = 0;
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        void Finish()
        {
            if (Interlocked.Increment(ref handled) == 2 * Messages)
            {
                done.SetResult();
            }
        }

        var interleave = Arbiter.Interleave(
            new TeardownReceiverGroup(),
            new ExclusiveReceiverGroup(Arbiter.Receive(true, exclusivePort, (int _) =>
            {
                if (Interlocked.Increment(ref exclusiveRunning) != 1 || Interlocked.Increment(ref running) != 1)
                {
                    Interlocked.Increment(ref violations);
                }

                Thread.SpinWait(200);
                Interlocked.Decrement(ref running);
                Interlocked.Decrement(ref exclusiveRunning);
                Finish();
            })),
            new ConcurrentReceiverGroup(Arbiter.Receive(true, concurrentPort, (int _) =>
            {
                var now = Interlocked.Increment(ref running);
                if (Volatile.Read(ref exclusiveRunning) != 0)
                {
                    Interlocked.Increment(ref violations);
                }

                InterlockedMax(ref maxConcurrent, now);
                Thread.SpinWait(200);
                Interlocked.Decrement(ref running);
                Finish();
            })));
        Queue.Activate(interleave);

        for (var i = 0; i < Messages; i++)
        {
            concurrentPort.Post(i);
            exclusivePort.Post(i);
        }

        await done.Task.OrHang();
        Assert.Equal(0, violations);
        Assert.True(maxConcurrent > 1, "concurrent handlers should overlap on a 4-thread dispatcher");
    }

    [Fact]
    public async Task Interleave_AsyncExclusiveHandler_HoldsExclusivityAcrossAwait()
    {
        var exclusivePort = new Port<int>();
        var concurrentPort = new Port<int>();
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var exclusiveEntered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var exclusiveFinished = 0;
        var concurrentSawExclusiveFinished = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        Queue.Activate(Arbiter.Interleave(
            new TeardownReceiverGroup(),
            new ExclusiveReceiverGroup(Arbiter.Receive(true, exclusivePort, async (int _) =>
            {
                exclusiveEntered.SetResult();
                await release.Task;
                Volatile.Write(ref exclusiveFinished, 1);
            })),
            new ConcurrentReceiverGroup(Arbiter.Receive(true, concurrentPort, (int _) =>
                concurrentSawExclusiveFinished.SetResult(Volatile.Read(ref exclusiveFinished) == 1)))));

        exclusivePort.Post(1);
        await exclusiveEntered.Task.OrHang();
        concurrentPort.Post(1);
        // The post consumed the message; once the dispatcher has taken the gated task, the handler
        // has either run (a broken gate) or been parked behind the exclusive one.
        Assert.Equal(0, concurrentPort.ItemCount);
        Assert.True(SpinWait.SpinUntil(() => Queue.Count == 0, TestTimeouts.Hang));
        release.SetResult();

        Assert.True(await concurrentSawExclusiveFinished.Task.OrHang());
    }

    [Fact]
    public async Task Interleave_Teardown_RunsOnceAfterAcceptedHandlersAndStopsTheRest()
    {
        var work = new Port<int>();
        var stop = new Port<bool>();
        var handled = 0;
        var teardowns = 0;
        var handledAtTeardown = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
        var release = new ManualResetEventSlim();
        var firstStarted = new ManualResetEventSlim();
        var interleave = Arbiter.Interleave(
            new TeardownReceiverGroup(Arbiter.Receive(false, stop, (bool _) =>
            {
                Interlocked.Increment(ref teardowns);
                handledAtTeardown.SetResult(Volatile.Read(ref handled));
            })),
            new ExclusiveReceiverGroup(),
            new ConcurrentReceiverGroup(Arbiter.Receive(true, work, (int _) =>
            {
                firstStarted.Set();
                release.Wait(TestTimeouts.Hang);
                Interlocked.Increment(ref handled);
            })));
        Queue.Activate(interleave);

        work.Post(1);
        work.Post(2);
        firstStarted.Wait(TestTimeouts.Hang);
        stop.Post(true);
        stop.Post(true);
        work.Post(3);
        release.Set();

        var handledBeforeTeardown = await handledAtTeardown.Task.OrHang();
        Assert.Equal(2, handledBeforeTeardown);
        Assert.Equal(1, Volatile.Read(ref teardowns));
        // The interleave retires when the teardown handler returns, just after it reported.
        Assert.True(SpinWait.SpinUntil(() => !interleave.IsActive, TestTimeouts.Hang));
        Assert.Equal(1, work.ItemCount);
        Assert.Equal(1, stop.ItemCount);
    }

    [Fact]
    public async Task MultipleItemReceive_OverSuccessFailurePorts_FiresOnceWithBothWhenAllArrived()
    {
        var results = new SuccessFailurePort<int>();
        var fired = new TaskCompletionSource<(int[] Successes, Exception[] Failures)>(TaskCreationOptions.RunContinuationsAsynchronously);
        var calls = 0;
        var gather = Arbiter.MultipleItemReceive(results, 10, (int[] successes, Exception[] failures) =>
        {
            Interlocked.Increment(ref calls);
            fired.TrySetResult((successes, failures));
        });
        Queue.Activate(gather);

        // Ten workers answer at once, three of them with a failure.
        Parallel.For(0, 10, i =>
        {
            if (i % 3 == 1)
            {
                results.Post(new InvalidOperationException($"worker {i}"));
            }
            else
            {
                results.Post(i);
            }
        });
        results.Post(99); // one too many: left for whoever comes next

        var (successes, failures) = await fired.Task.OrHang();
        Assert.Equal([0, 2, 3, 5, 6, 8, 9], successes.Order());
        Assert.Equal(["worker 1", "worker 4", "worker 7"], failures.Select(f => f.Message).Order());
        Assert.False(gather.IsActive);
        Assert.Equal(1, results.P0.ItemCount);
        Assert.Equal(1, Volatile.Read(ref calls));
    }

    [Fact]
    public async Task MultipleItemReceive_OverSuccessFailurePorts_LosingChoiceBranchTakesNothing()
    {
        var results = new SuccessFailurePort<int>();
        var timeout = new Port<bool>();
        var outcome = new TaskCompletionSource<string>(TaskCreationOptions.RunContinuationsAsynchronously);
        Queue.Activate(Arbiter.Choice(
            Arbiter.MultipleItemReceive(results, 3, (int[] s, Exception[] f) => outcome.SetResult("gathered")),
            Arbiter.Receive(false, timeout, (bool _) => outcome.SetResult("timed out"))));

        results.Post(1);
        results.Post(new InvalidOperationException("late"));
        timeout.Post(true);
        results.Post(3);

        Assert.Equal("timed out", await outcome.Task.OrHang());
        Assert.Equal((2, 1), (results.P0.ItemCount, results.P1.ItemCount));
    }

    [Fact]
    public async Task Receive_HandlerThrows_ExceptionGoesToItsErrorPort()
    {
        var port = new Port<int>();
        var errors = new Port<Exception>();
        Queue.Activate(Arbiter.Receive(false, port, (int _) => throw new InvalidOperationException("handler failed")).WithErrorPort(errors));

        port.Post(1);

        var error = await errors.ReceiveAsync(TestContext.Current.CancellationToken).OrHang();
        Assert.Equal("handler failed", error.Message);
    }

    [Fact]
    public async Task Receive_AsyncHandlerThrowsLater_ExceptionGoesToItsErrorPort()
    {
        var port = new Port<int>();
        var errors = new Port<Exception>();
        var proceed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Queue.Activate(Arbiter.Receive(false, port, async (int _) =>
        {
            await proceed.Task;
            throw new InvalidOperationException("later");
        }).WithErrorPort(errors));

        port.Post(1);
        proceed.SetResult();

        Assert.Equal("later", (await errors.ReceiveAsync(TestContext.Current.CancellationToken).OrHang()).Message);
    }

    [Fact]
    public async Task FromHandler_Spawned_Runs()
    {
        var ran = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);

        Assert.True(Queue.TryEnqueue(Arbiter.FromHandler(() => ran.SetResult(Dispatcher.Current == _dispatcher))));

        Assert.True(await ran.Task.OrHang());
    }

    [Fact]
    public void Activate_Twice_Throws()
    {
        var receiver = Arbiter.Receive(false, new Port<int>(), (int _) => { });
        Queue.Activate(receiver);

        Assert.Throws<InvalidOperationException>(() => Queue.Activate(receiver));
    }

    private static void InterlockedMax(ref int target, int value)
    {
        var current = Volatile.Read(ref target);
        while (value > current)
        {
            var seen = Interlocked.CompareExchange(ref target, value, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }
}
