namespace Salsa.Ccr.Tests;

/// <summary>What the SPMD runtime promises when a rank's code goes beyond one thread, or the ranks stop agreeing.</summary>
public sealed class SpmdMisuseTests
{
    public static TheoryData<int, SpmdExecution> Sizes() => SpmdTests.BothExecutions([2, 3, 5, 8, 16]);

    private static Task RunAsync(int size, SpmdExecution execution, Func<Communicator, ValueTask> body) => SpmdTests.RunAsync(size, execution, body);

    [Theory]
    [InlineData(SpmdExecution.Threads)]
    [InlineData(SpmdExecution.Tasks)]
    public async Task Send_FromSeveralThreadsOfOneRank_EveryMessageArrivesOnceInEachThreadsOrder(SpmdExecution execution)
    {
        const int Senders = 4;
        const int PerSender = 2_000;
        for (var run = 0; run < 200; run++)
        {
            var received = new List<(int Sender, int Sequence)>();
            await RunAsync(2, execution, async comm =>
            {
                if (comm.Rank == 0)
                {
                    // The rank's own thread is sender 0 and sends alongside three threads it starts:
                    // the first send of another thread meets the owner's sends in flight.
                    using var start = new Barrier(Senders);
                    void SendAll(int sender)
                    {
                        start.SignalAndWait();
                        for (var i = 0; i < PerSender; i++)
                        {
                            comm.Send(1, (sender, i));
                        }
                    }

                    var threads = Enumerable.Range(1, Senders - 1).Select(s => new Thread(() => SendAll(s))).ToArray();
                    foreach (var thread in threads)
                    {
                        thread.Start();
                    }

                    SendAll(0);
                    foreach (var thread in threads)
                    {
                        thread.Join();
                    }
                }
                else
                {
                    for (var i = 0; i < Senders * PerSender; i++)
                    {
                        received.Add(await comm.ReceiveAsync<(int, int)>(0));
                    }
                }
            });

            var next = new int[Senders];
            foreach (var (sender, sequence) in received)
            {
                Assert.Equal(next[sender]++, sequence);
            }

            Assert.All(next, n => Assert.Equal(PerSender, n));
        }
    }

    public static TheoryData<string, int, SpmdExecution> Mismatches()
    {
        var data = new TheoryData<string, int, SpmdExecution>();
        foreach (var mismatch in MismatchedCalls.Keys)
        {
            foreach (var size in new[] { 2, 3, 8 })
            {
                data.Add(mismatch, size, SpmdExecution.Threads);
                data.Add(mismatch, size, SpmdExecution.Tasks);
            }
        }

        return data;
    }

    /// <summary>What rank 0 calls and what every other rank calls, as the same collective.</summary>
    private static readonly Dictionary<string, (Func<Communicator, ValueTask> First, Func<Communicator, ValueTask> Others)> MismatchedCalls = new()
    {
        ["allreduce/barrier"] = (c => c.AllreduceAsync(new double[3], new double[3], ReduceOperation.Sum), c => c.BarrierAsync()),
        ["barrier/allgather"] = (c => c.BarrierAsync(), async c => await c.AllgatherAsync(c.Rank)),
        ["broadcast roots"] = (async c => await c.BroadcastAsync(c.Rank, 0), async c => await c.BroadcastAsync(c.Rank, 1)),
        ["allgather types"] = (async c => await c.AllgatherAsync(c.Rank), async c => await c.AllgatherAsync((long)c.Rank)),
        ["reduce/gather"] = (c => c.ReduceAsync(new double[2], new double[2], ReduceOperation.Sum), async c => await c.GatherAsync(1.0)),
        ["allreduce/reduce"] = (c => c.AllreduceAsync(new double[2], new double[2], ReduceOperation.Max), c => c.ReduceAsync(new double[2], new double[2], ReduceOperation.Max, 1)),
    };

    [Theory]
    [MemberData(nameof(Mismatches))]
    public async Task MismatchedCollectives_FailEveryRankWithOneClearError(string mismatch, int size, SpmdExecution execution)
    {
        var (first, others) = MismatchedCalls[mismatch];
        var finished = 0;
        var error = await Record.ExceptionAsync(() => RunAsync(size, execution, async comm =>
        {
            for (var round = 0; round < 3; round++)
            {
                await comm.BarrierAsync();
                await comm.AllreduceAsync(new double[] { comm.Rank }, new double[1], ReduceOperation.Sum);
            }

            await (comm.Rank == 0 ? first : others)(comm);
            await comm.BarrierAsync();
            Interlocked.Increment(ref finished);
        }));

        Assert.NotNull(error);
        var errors = error is AggregateException aggregate ? aggregate.InnerExceptions : [error];
        Assert.All(errors, e =>
        {
            Assert.IsType<InvalidOperationException>(e);
            Assert.Contains("called different collectives as collective #7", e.Message, StringComparison.Ordinal);
        });
        Assert.Equal(0, finished);
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(8)]
    public async Task SendsAfterAnAwaitOfSomethingElse_ArriveOnceInOrder(int size)
    {
        // Task execution: a rank resumed from an await that is not the communicator's (a yield, work on
        // the thread pool) is back on its queue but not known as its flow, so its sends take the lock.
        // The first 100 rounds send from the flow, unlocked; the rest switch over (each rank at its
        // own moment): every message arrives once, in order, on both sides of the switch.
        const int Rounds = 300;
        var checksums = new long[size];
        await RunAsync(size, SpmdExecution.Tasks, async comm =>
        {
            var right = (comm.Rank + 1) % size;
            var left = (comm.Rank + size - 1) % size;
            for (var round = 0; round < Rounds; round++)
            {
                switch (round < 100 ? -1 : round % 3)
                {
                    case 0:
                        await Task.Yield();
                        break;
                    case 1:
                        await Task.Run(() => Thread.SpinWait(100));
                        break;
                }

                comm.Send(right, 2 * round);
                comm.Send(right, 2 * round + 1);
                Assert.Equal(2 * round, await comm.ReceiveAsync<int>(left));
                Assert.Equal(2 * round + 1, await comm.ReceiveAsync<int>(left));
                checksums[comm.Rank] += 4 * round + 1;
                if (round % 50 == 0)
                {
                    await comm.BarrierAsync();
                }
            }
        });

        Assert.All(checksums, sum => Assert.Equal((long)Rounds * (2 * Rounds - 1), sum));
    }

    [Theory]
    [MemberData(nameof(Sizes))]
    public async Task RankReturnsEarly_TheOthersFailWithADeadlockReportInsteadOfWaitingForEver(int size, SpmdExecution execution)
    {
        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => RunAsync(size, execution, async comm =>
        {
            var collectives = comm.Rank == size - 1 ? 2 : 3;
            for (var i = 0; i < collectives; i++)
            {
                await comm.BarrierAsync();
            }
        }));

        Assert.StartsWith("The SPMD ranks are deadlocked", error.Message, StringComparison.Ordinal);
        Assert.Contains($"rank {size - 1} returned after collective #2", error.Message, StringComparison.Ordinal);
        Assert.Contains("wait for every rank to reach collective #3", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(SpmdExecution.Threads)]
    [InlineData(SpmdExecution.Tasks)]
    public async Task ReceiveWithoutASend_IsReportedAsADeadlock(SpmdExecution execution)
    {
        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => RunAsync(3, execution, async comm =>
        {
            if (comm.Rank == 1)
            {
                await comm.ReceiveAsync<int>(2);
            }

            await comm.BarrierAsync();
        }));

        Assert.Contains("rank 1 wait for a message from rank 2", error.Message, StringComparison.Ordinal);
        Assert.Contains("ranks 0, 2 wait for every rank to reach collective #1", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(SpmdExecution.Threads)]
    [InlineData(SpmdExecution.Tasks)]
    public async Task ExchangeAgainstABarrier_IsReportedAsADeadlock(SpmdExecution execution)
    {
        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => RunAsync(2, execution, async comm =>
        {
            if (comm.Rank == 0)
            {
                await comm.ExchangeAsync(1, 2);
            }
            else
            {
                await comm.BarrierAsync();
            }
        }));

        Assert.Contains("deadlocked", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Sizes))]
    public async Task CorrectProgramsWithLongStalls_AreNeverTakenForDeadlocked(int size, SpmdExecution execution)
    {
        // Ranks stall often (rank 0 computes while the others wait) and return at different times
        // after their last collective: none of it is a deadlock.
        var checksum = 0L;
        await RunAsync(size, execution, async comm =>
        {
            for (var round = 0; round < 200; round++)
            {
                if (comm.Rank == round % size)
                {
                    Thread.SpinWait(2_000);
                }

                var sum = await comm.AllreduceAsync(1.0 * comm.Rank, (a, b) => a + b);
                var fromLeft = await comm.ShiftAsync(round);
                Interlocked.Add(ref checksum, (long)sum + fromLeft);
            }

            if (comm.Rank == 0)
            {
                Thread.SpinWait(50_000);
            }
        });

        Assert.Equal(size * Enumerable.Range(0, 200).Sum(round => (long)(size * (size - 1) / 2) + round), checksum);
    }

    [Theory]
    [InlineData(2, SpmdExecution.Tasks)]
    [InlineData(2, SpmdExecution.Threads)]
    [InlineData(3, SpmdExecution.Tasks)]
    [InlineData(8, SpmdExecution.Tasks)]
    [InlineData(8, SpmdExecution.Threads)]
    public async Task ExchangeStorm_IsNeverTakenForADeadlock(int size, SpmdExecution execution)
    {
        // Ranks stall and wake each other hundreds of thousands of times; a detector that trusted one
        // scan of their states took two ranks woken one after the other for two stalled at once
        // (within a second, 2 ranks, task execution).
        for (var run = 0; run < 10; run++)
        {
            await RunAsync(size, execution, async comm =>
            {
                for (var i = 0; i < 20_000; i++)
                {
                    await comm.ExchangeAsync<byte>(0, 0);
                    if (i % 1_000 == 0)
                    {
                        await comm.BarrierAsync();
                    }
                }
            });
        }
    }

    [Theory]
    [InlineData(4)]
    [InlineData(8)]
    public async Task ThreadExecution_BesideABusyProcess_EveryExchangeDeliversAndNoneIsTakenForADeadlock(int size)
    {
        // The rank threads pinned to cores, more ranks than cores, and a CPU-bound process of another
        // program competing for them: waiters' yields lose the core to it for whole scheduler slices,
        // and they switch to blocking at once for a while (RankWaiter's slow-yield path).
        const int Exchanges = 3_000;
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = size, PinThreads = true, IdleSpin = TimeSpan.Zero });
        using var busy = System.Diagnostics.Process.Start(new System.Diagnostics.ProcessStartInfo("/bin/sh", ["-c", "while :; do :; done"]) { UseShellExecute = false })!;
        try
        {
            var checksums = new long[size];
            await Task.Factory.StartNew(() => Spmd.Run(size, comm =>
            {
                var left = (comm.Rank + size - 1) % size;
                var right = (comm.Rank + 1) % size;
                for (var i = 0; i < Exchanges; i++)
                {
                    var (fromLeft, fromRight) = comm.Exchange(comm.Rank * 100_000 + i, comm.Rank * 100_000 + i);
                    Assert.Equal(left * 100_000 + i, fromLeft);
                    Assert.Equal(right * 100_000 + i, fromRight);
                    checksums[comm.Rank] += fromLeft + fromRight;
                }
            }, new SpmdOptions { Dispatcher = dispatcher }), TaskCreationOptions.LongRunning).OrHang();

            long Expected(int rank) => Enumerable.Range(0, Exchanges).Sum(i => (long)(((rank + size - 1) % size) + ((rank + 1) % size)) * 100_000 + 2L * i);
            Assert.Equal(Enumerable.Range(0, size).Select(Expected), checksums);
        }
        finally
        {
            busy.Kill(entireProcessTree: true);
            busy.WaitForExit();
        }
    }

    public static TheoryData<int, SpmdExecution> ReductionSizes() => SpmdTests.BothExecutions([1, 2, 3, 5, 8, 16]);

    [Theory]
    [MemberData(nameof(ReductionSizes))]
    public async Task VectorReductions_AnyLength_BitEqualToTheRankOrderFoldEveryRun(int size, SpmdExecution execution)
    {
        // Lengths around every vector width (2, 4, 8 doubles) and their remainders.
        int[] lengths = [1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 127, 1_000];
        double[] Contribution(int rank, int length)
        {
            var random = new Random(rank * 7_919 + length);
            return [.. Enumerable.Range(0, length).Select(_ => (random.NextDouble() - 0.5) * Math.Pow(10, random.Next(-8, 8)))];
        }

        double[] Expected(int length, Func<double, double, double> combine)
        {
            var folded = Contribution(0, length);
            for (var r = 1; r < size; r++)
            {
                var next = Contribution(r, length);
                for (var i = 0; i < length; i++)
                {
                    folded[i] = combine(folded[i], next[i]);
                }
            }

            return folded;
        }

        (ReduceOperation Operation, Func<double, double, double> Combine)[] operations =
            [(ReduceOperation.Sum, (a, b) => a + b), (ReduceOperation.Min, Math.Min), (ReduceOperation.Max, Math.Max)];
        var wrong = new List<string>();
        for (var run = 0; run < 3; run++)
        {
            await RunAsync(size, execution, async comm =>
            {
                foreach (var length in lengths)
                {
                    foreach (var (operation, combine) in operations)
                    {
                        var result = new double[length];
                        await comm.AllreduceAsync(Contribution(comm.Rank, length), result, operation);
                        if (!result.Select(BitConverter.DoubleToInt64Bits).SequenceEqual(Expected(length, combine).Select(BitConverter.DoubleToInt64Bits)))
                        {
                            lock (wrong)
                            {
                                wrong.Add($"run {run}, rank {comm.Rank}, length {length}, {operation}");
                            }
                        }
                    }
                }
            });
        }

        Assert.Empty(wrong);
    }

    /// <summary>Every collective, entered by all ranks but one, which throws instead.</summary>
    private static readonly Dictionary<string, Func<Communicator, ValueTask>> Collectives = new()
    {
        ["barrier"] = c => c.BarrierAsync(),
        ["broadcast"] = async c => await c.BroadcastAsync(c.Rank, c.Size - 1),
        ["allreduce"] = c => c.AllreduceAsync(new double[5], new double[5], ReduceOperation.Sum),
        ["reduce"] = c => c.ReduceAsync(new double[5], new double[5], ReduceOperation.Sum, c.Size - 1),
        ["gather"] = async c => await c.GatherAsync(c.Rank, c.Size - 1),
        ["allgather"] = async c => await c.AllgatherAsync(c.Rank),
        ["user allreduce"] = async c => await c.AllreduceAsync(c.Rank, (a, b) => a + b),
        ["exchange"] = async c => await c.ExchangeAsync(c.Rank, c.Rank),
        ["shift"] = async c => await c.ShiftAsync(c.Rank),
        ["send and receive"] = async c =>
        {
            c.Send(c.Neighbour(1), c.Rank);
            await c.ReceiveAsync<int>(c.Neighbour(-1));
        },
    };

    public static TheoryData<string, SpmdExecution> CollectiveFailures()
    {
        var data = new TheoryData<string, SpmdExecution>();
        foreach (var collective in Collectives.Keys)
        {
            data.Add(collective, SpmdExecution.Threads);
            data.Add(collective, SpmdExecution.Tasks);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(CollectiveFailures))]
    public async Task RankThrowsWhileTheOthersWaitInACollective_EverySize_TheOriginalFailureAndNoHang(string collective, SpmdExecution execution)
    {
        var operation = Collectives[collective];
        for (var size = 1; size <= 16; size++)
        {
            var failing = size - 1;
            var error = await Record.ExceptionAsync(() => RunAsync(size, execution, async comm =>
            {
                await comm.BarrierAsync();
                await operation(comm);
                if (comm.Rank == failing)
                {
                    throw new InvalidDataException($"rank {comm.Rank} failed");
                }

                await operation(comm); // the others wait here for the rank that failed
            }));

            var failure = Assert.IsType<InvalidDataException>(error);
            Assert.Equal($"rank {failing} failed", failure.Message);
        }
    }
}
