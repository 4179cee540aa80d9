namespace Salsa.Ccr.Tests;

public sealed class DispatcherTests
{
    [Fact]
    public async Task Constructor_ThreadCount_RunsTasksOnThatManyDedicatedThreads()
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 3, Name = "three" });
        var threads = new HashSet<int>();
        using var meet = new Barrier(3);
        var done = Enumerable.Range(0, 3).Select(_ => dispatcher.DefaultQueue.Spawn(() =>
        {
            // All three must be in flight at once, so three distinct threads run them.
            meet.SignalAndWait(TestTimeouts.Hang);
            lock (threads)
            {
                threads.Add(Environment.CurrentManagedThreadId);
            }

            Assert.Equal(dispatcher, Dispatcher.Current);
            Assert.StartsWith("three #", Thread.CurrentThread.Name, StringComparison.Ordinal);
            return Task.CompletedTask;
        })).ToArray();

        await Task.WhenAll(done).OrHang();
        Assert.Equal(3, threads.Count);
    }

    [Fact]
    public async Task PinThreads_OnLinux_EachThreadBoundToItsOwnAllowedCore()
    {
        Assert.SkipUnless(OperatingSystem.IsLinux(), "Core pinning is Linux-only.");
        var cores = Environment.ProcessorCount;
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = cores, Name = "pinned", PinThreads = true });
        using var meet = new Barrier(cores);
        var allowed = new List<string>();
        var done = Enumerable.Range(0, cores).Select(_ => dispatcher.DefaultQueue.Spawn(() =>
        {
            meet.SignalAndWait(TestTimeouts.Hang);
            var line = File.ReadLines("/proc/thread-self/status").Single(l => l.StartsWith("Cpus_allowed_list:", StringComparison.Ordinal));
            lock (allowed)
            {
                allowed.Add(line.Split(':')[1].Trim());
            }

            return Task.CompletedTask;
        })).ToArray();

        await Task.WhenAll(done).OrHang();

        Assert.All(allowed, a => Assert.True(int.TryParse(a, out _), $"thread allowed on '{a}', not one core"));
        Assert.Equal(cores, allowed.Distinct().Count());
    }

    [Fact]
    public async Task Spawn_AwaitInsideHandler_ResumesOnTheDispatcher()
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 2 });
        var port = new Port<int>();

        var handler = dispatcher.DefaultQueue.Spawn(async () =>
        {
            var message = await port.ReceiveAsync();
            return (message, Dispatcher.Current == dispatcher, DispatcherQueue.Current == dispatcher.DefaultQueue);
        });
        port.Post(42);

        Assert.Equal((42, true, true), await handler.OrHang());
    }

    [Fact]
    public async Task RunBatch_TwoQueues_OneFloodedOtherStillServed()
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        var busy = dispatcher.CreateQueue("busy", new DispatcherQueueOptions { FairnessQuantum = 4 });
        var quiet = dispatcher.CreateQueue("quiet");
        var gate = new ManualResetEventSlim();
        var busyRan = 0;
        busy.Post(() => gate.Wait(TestTimeouts.Hang));
        for (var i = 0; i < 10_000; i++)
        {
            busy.Post(() => Interlocked.Increment(ref busyRan));
        }

        var quietDone = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
        quiet.Post(() => quietDone.SetResult(Volatile.Read(ref busyRan)));
        gate.Set();

        var busyRanBeforeQuiet = await quietDone.Task.OrHang();
        Assert.True(busyRanBeforeQuiet < 100, $"the quiet queue waited for {busyRanBeforeQuiet} busy tasks");
    }

    [Fact]
    public void TryEnqueue_DiscardNewestWhenFull_RefusesAndCounts()
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        using var gate = new ManualResetEventSlim();
        var started = new ManualResetEventSlim();
        dispatcher.DefaultQueue.Post(() => { started.Set(); gate.Wait(TestTimeouts.Hang); });
        started.Wait(TestTimeouts.Hang);
        var queue = dispatcher.CreateQueue("bounded", new DispatcherQueueOptions { Policy = QueuePolicy.DiscardNewest, MaxDepth = 2 });

        var accepted = Enumerable.Range(0, 5).Select(_ => queue.TryEnqueue(Arbiter.FromHandler(() => { }))).ToArray();
        gate.Set();

        Assert.Equal([true, true, false, false, false], accepted);
        Assert.Equal(3, queue.DiscardedCount);
    }

    [Fact]
    public async Task TryEnqueue_DiscardOldestWhenFull_KeepsTheNewest()
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        using var gate = new ManualResetEventSlim();
        var started = new ManualResetEventSlim();
        dispatcher.DefaultQueue.Post(() => { started.Set(); gate.Wait(TestTimeouts.Hang); });
        started.Wait(TestTimeouts.Hang);
        var queue = dispatcher.CreateQueue("bounded", new DispatcherQueueOptions { Policy = QueuePolicy.DiscardOldest, MaxDepth = 2 });
        var ran = new List<int>();
        var last = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        for (var i = 0; i < 5; i++)
        {
            var value = i;
            Assert.True(queue.TryEnqueue(Arbiter.FromHandler(() =>
            {
                lock (ran)
                {
                    ran.Add(value);
                }

                if (value == 4)
                {
                    last.SetResult();
                }
            })));
        }

        gate.Set();
        await last.Task.OrHang();
        Assert.Equal([3, 4], ran);
        Assert.Equal(3, queue.DiscardedCount);
    }

    /// <summary>
    /// Four posters racing into a full DiscardOldest queue (its dispatcher blocked): the queue never
    /// holds more than MaxDepth, and every post is either queued or counted as discarded — 500 trials.
    /// (Dropping the oldest and then counting the newcomer let other posters take the freed slot in
    /// between: 5–7 queued in most trials.)
    /// </summary>
    [Fact]
    public void TryEnqueue_DiscardOldestUnderContention_NeverHoldsMoreThanMaxDepth()
    {
        const int posters = 4;
        const int postsEach = 50;
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        dispatcher.DefaultQueue.Post(() => { started.Set(); gate.Wait(TestTimeouts.Hang); });
        started.Wait(TestTimeouts.Hang);
        var over = 0;
        for (var trial = 0; trial < 500; trial++)
        {
            var queue = dispatcher.CreateQueue($"trial {trial}", new DispatcherQueueOptions { Policy = QueuePolicy.DiscardOldest, MaxDepth = 4 });
            using var go = new Barrier(posters);
            var maxSeen = 0;
            var threads = Enumerable.Range(0, posters).Select(_ => new Thread(() =>
            {
                go.SignalAndWait();
                for (var i = 0; i < postsEach; i++)
                {
                    Assert.True(queue.TryEnqueue(Arbiter.FromHandler(() => { })));
                    var count = queue.Count;
                    InterlockedMax(ref maxSeen, count);
                }
            })).ToList();
            threads.ForEach(t => t.Start());
            threads.ForEach(t => t.Join());

            over += maxSeen > 4 || queue.Count > 4 ? 1 : 0;
            Assert.Equal(posters * postsEach, queue.Count + queue.DiscardedCount);
        }

        gate.Set();
        Assert.Equal(0, over);

        static void InterlockedMax(ref int target, int value)
        {
            var seen = Volatile.Read(ref target);
            while (value > seen && Interlocked.CompareExchange(ref target, value, seen) is var now && now != seen)
            {
                seen = now;
            }
        }
    }

    [Fact]
    public async Task EnqueueAsync_ThrottleWhenFull_WaitsForRoomThenRuns()
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        using var gate = new ManualResetEventSlim();
        var started = new ManualResetEventSlim();
        var queue = dispatcher.CreateQueue("throttled", new DispatcherQueueOptions { Policy = QueuePolicy.Throttle, MaxDepth = 1 });
        queue.Post(() => { started.Set(); gate.Wait(TestTimeouts.Hang); });
        started.Wait(TestTimeouts.Hang);
        Assert.True(queue.TryEnqueue(Arbiter.FromHandler(() => { })));
        var third = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        var posting = queue.EnqueueAsync(Arbiter.FromHandler(third.SetResult), TestContext.Current.CancellationToken).AsTask();
        Assert.False(queue.TryEnqueue(Arbiter.FromHandler(() => { })));
        Assert.False(posting.IsCompleted);
        gate.Set();

        Assert.True(await posting.OrHang());
        await third.Task.OrHang();
    }

    [Fact]
    public async Task Enqueue_ThrottleFromTheDispatchersOwnThread_NeverBlocks()
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        var queue = dispatcher.CreateQueue("throttled", new DispatcherQueueOptions { Policy = QueuePolicy.Throttle, MaxDepth = 1 });
        var results = new TaskCompletionSource<bool[]>(TaskCreationOptions.RunContinuationsAsynchronously);

        queue.Post(() => results.SetResult([.. Enumerable.Range(0, 10).Select(_ => queue.Enqueue(Arbiter.FromHandler(() => { })))]));

        Assert.All(await results.Task.OrHang(), Assert.True);
    }

    [Fact]
    public async Task Dispose_PendingReceive_IsCancelledNotLeaked()
    {
        var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        var port = new Port<int>();
        var waiting = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var handler = dispatcher.DefaultQueue.Spawn(async () =>
        {
            var receive = port.ReceiveAsync();
            waiting.SetResult();
            return await receive;
        });
        await waiting.Task.OrHang();
        var receiver = Arbiter.Receive(false, port, (int _) => { });
        dispatcher.DefaultQueue.Activate(receiver);

        dispatcher.Dispose();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => handler).OrHang();
        Assert.False(receiver.IsActive);
        port.Post(1);
        Assert.True(port.Test(out _));
        Assert.True(dispatcher.Completion.IsCompletedSuccessfully);
    }

    [Fact]
    public async Task ReceiveAsync_OnTheDispatcherThreadAfterItsDispose_IsCancelled()
    {
        var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        var port = new Port<int>();
        var started = new TaskCompletionSource<Task<int>>(TaskCreationOptions.RunContinuationsAsynchronously);
        dispatcher.DefaultQueue.Post(() =>
        {
            dispatcher.Dispose(); // from its own thread: the queues close, this handler goes on
            started.SetResult(port.ReceiveAsync().AsTask());
        });

        var receive = await started.Task.OrHang();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => receive.OrHang());
        port.Post(1);
        Assert.Equal(1, port.ItemCount);
    }

    [Fact]
    public void Activate_OnADisposedDispatchersQueue_ThrowsAndCancelsTheArbiter()
    {
        var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        dispatcher.Dispose();
        var port = new Port<int>();
        var receiver = Arbiter.Receive(true, port, (int _) => { });

        var error = Assert.Throws<ObjectDisposedException>(() => dispatcher.DefaultQueue.Activate(receiver));

        Assert.Contains("closed", error.Message, StringComparison.Ordinal);
        Assert.False(receiver.IsActive);
        port.Post(1);
        Assert.Equal((0, 1), (port.ReceiverCount, port.ItemCount));
    }

    [Fact]
    public async Task Dispose_FromTwoThreadsWhilePostersPostAndAHandlerDisposesToo_EndsCleanlyEveryTime()
    {
        for (var trial = 0; trial < 200; trial++)
        {
            var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 2 });
            var port = new Port<int>();
            var received = 0;
            dispatcher.DefaultQueue.Activate(Arbiter.Receive(true, port, (int m) =>
            {
                if (Interlocked.Increment(ref received) == 50)
                {
                    dispatcher.Dispose(); // from a handler, on a dispatcher thread
                }
            }));
            using var start = new Barrier(4);
            var posters = Enumerable.Range(0, 2).Select(_ => Task.Run(() =>
            {
                start.SignalAndWait();
                for (var i = 0; i < 1_000; i++)
                {
                    port.Post(i);
                    dispatcher.DefaultQueue.Post(() => { });
                }
            })).ToArray();
            var disposers = Enumerable.Range(0, 2).Select(_ => Task.Run(() =>
            {
                start.SignalAndWait();
                Thread.SpinWait(Random.Shared.Next(5_000));
                dispatcher.Dispose();
            })).ToArray();

            await Task.WhenAll(posters.Concat(disposers)).OrHang();

            Assert.True(dispatcher.IsDisposed);
            Assert.True(dispatcher.Completion.IsCompletedSuccessfully, $"trial {trial}: {dispatcher.Completion.Exception}");
            Assert.False(dispatcher.DefaultQueue.Post(() => { }));
            var before = Volatile.Read(ref received);
            port.Post(-1); // nobody receives any more
            Assert.Equal(before, Volatile.Read(ref received));
        }
    }

    [Fact]
    public void Dispose_FromOutside_StopsEveryThreadBeforeReturning()
    {
        var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 4 });
        var ran = 0;
        for (var i = 0; i < 1000; i++)
        {
            dispatcher.DefaultQueue.Post(() => Interlocked.Increment(ref ran));
        }

        dispatcher.Dispose();
        var after = Volatile.Read(ref ran);

        Assert.False(dispatcher.DefaultQueue.Post(() => Interlocked.Increment(ref ran)));
        Assert.Equal(after, Volatile.Read(ref ran));
        Assert.True(dispatcher.Completion.IsCompleted);
    }

    [Fact]
    public async Task HandlerException_NoErrorPort_FaultsCompletionOnDispose()
    {
        var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        var ran = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        dispatcher.DefaultQueue.Post(() => throw new InvalidOperationException("boom"));
        dispatcher.DefaultQueue.Post(ran.SetResult);
        await ran.Task.OrHang();

        dispatcher.Dispose();

        var error = await Assert.ThrowsAsync<AggregateException>(() => dispatcher.Completion);
        Assert.Contains(error.InnerExceptions, e => e.Message == "boom");
    }

    [Fact]
    public async Task HandlerException_QueueErrorPort_ReceivesIt()
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        var errors = new Port<Exception>();
        dispatcher.DefaultQueue.UnhandledExceptionPort = errors;

        dispatcher.DefaultQueue.Post(() => throw new InvalidOperationException("to the port"));

        var error = await errors.ReceiveAsync(TestContext.Current.CancellationToken).OrHang();
        Assert.Equal("to the port", error.Message);
    }

    [Fact]
    public async Task HandlerException_UnhandledExceptionEvent_ReceivesIt()
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        var seen = new TaskCompletionSource<Exception>(TaskCreationOptions.RunContinuationsAsynchronously);
        dispatcher.UnhandledException += (_, e) => seen.TrySetResult(e.Exception);

        dispatcher.DefaultQueue.Post(() => throw new FormatException("to the event"));

        Assert.IsType<FormatException>(await seen.Task.OrHang());
    }

    /// <summary>
    /// A subscriber of UnhandledException that throws, 1,000 times: the dispatcher thread survives (it
    /// used to be taken down, and the process with it), the next subscriber still hears every fault, and
    /// the subscriber's exceptions surface in Completion with the faults they were handed.
    /// </summary>
    [Fact]
    public async Task UnhandledExceptionSubscriberThrows_TheDispatcherKeepsRunningAndCompletionHasIt()
    {
        var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 2 });
        var heard = 0;
        var all = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        dispatcher.UnhandledException += (_, _) => throw new InvalidOperationException("a careless subscriber");
        dispatcher.UnhandledException += (_, _) =>
        {
            if (Interlocked.Increment(ref heard) == 1_000)
            {
                all.SetResult();
            }
        };
        for (var i = 0; i < 1_000; i++)
        {
            dispatcher.DefaultQueue.Post(() => throw new FormatException("a faulting handler"));
        }

        var after = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await all.Task.OrHang();
        dispatcher.DefaultQueue.Post(after.SetResult);
        await after.Task.OrHang();
        dispatcher.Dispose();

        Assert.Equal(1_000, Volatile.Read(ref heard));
        var completion = await Assert.ThrowsAnyAsync<Exception>(() => dispatcher.Completion.OrHang());
        var faults = dispatcher.Completion.Exception!.Flatten().InnerExceptions;
        Assert.Equal(2_000, faults.Count); // each subscriber fault with the handler fault it was handed
        Assert.Equal(1_000, faults.Count(f => f is InvalidOperationException));
        Assert.Equal(1_000, faults.Count(f => f is FormatException));
        Assert.NotNull(completion);
    }

    [Fact]
    public async Task Spawn_HandlerThrowsAfterAwait_ExceptionReachesTheAwaitingTask()
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        var port = new Port<int>();

        var handler = dispatcher.DefaultQueue.Spawn(async () =>
        {
            await port.ReceiveAsync();
            throw new InvalidDataException("after await");
        });
        port.Post(1);

        var error = await Assert.ThrowsAsync<InvalidDataException>(() => handler).OrHang();
        Assert.Equal("after await", error.Message);
    }

    [Fact]
    public void Constructor_InvalidOptions_Throw()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new Dispatcher(new DispatcherOptions { ThreadCount = 0 }));
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 1 });
        Assert.Throws<ArgumentOutOfRangeException>(() => dispatcher.CreateQueue("q", new DispatcherQueueOptions { Policy = QueuePolicy.Throttle, MaxDepth = 0 }));
    }
}
