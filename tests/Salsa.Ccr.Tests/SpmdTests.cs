namespace Salsa.Ccr.Tests;

public sealed class SpmdTests
{
    public static TheoryData<int, SpmdExecution> Sizes() => BothExecutions(Enumerable.Range(1, 16));

    /// <summary>Each size under thread and under task execution.</summary>
    internal static TheoryData<int, SpmdExecution> BothExecutions(IEnumerable<int> sizes)
    {
        var data = new TheoryData<int, SpmdExecution>();
        foreach (var size in sizes)
        {
            data.Add(size, SpmdExecution.Threads);
            data.Add(size, SpmdExecution.Tasks);
        }

        return data;
    }

    /// <summary>Runs a rank body under either execution; the async body works in both.</summary>
    internal static Task RunAsync(int size, SpmdExecution execution, Func<Communicator, ValueTask> body, SpmdOptions? options = null) =>
        execution == SpmdExecution.Threads
            ? Task.Factory.StartNew(() => Spmd.Run(size, c => body(c).AsTask().GetAwaiter().GetResult(), options), TaskCreationOptions.LongRunning).OrHang()
            : Spmd.RunAsync(size, body, options).OrHang();

    [Theory]
    [MemberData(nameof(Sizes))]
    public async Task Collectives_EverySize_GiveTheMpiResults(int size, SpmdExecution execution)
    {
        var failures = new List<string>();
        await RunAsync(size, execution, async comm =>
        {
            var r = comm.Rank;
            void Expect(bool ok, string what)
            {
                if (!ok)
                {
                    lock (failures)
                    {
                        failures.Add($"rank {r}: {what}");
                    }
                }
            }

            for (var round = 0; round < 20; round++)
            {
                await comm.BarrierAsync();

                var shifted = await comm.ShiftAsync((r, round));
                Expect(shifted == (comm.Neighbour(-1), round), $"shift got {shifted}");

                var (fromLeft, fromRight) = await comm.ExchangeAsync(("toLeft", r), ("toRight", r));
                Expect(fromLeft == ("toRight", comm.Neighbour(-1)) && fromRight == ("toLeft", comm.Neighbour(1)), $"exchange got {fromLeft}, {fromRight}");

                var root = round % size;
                var broadcast = await comm.BroadcastAsync(r == root ? $"from {root}" : "wrong", root);
                Expect(broadcast == $"from {root}", $"broadcast got {broadcast}");

                var vector = new double[] { r, -r, r * r, round };
                var sum = new double[4];
                await comm.AllreduceAsync(vector, sum, ReduceOperation.Sum);
                var n = size;
                Expect(sum[0] == n * (n - 1) / 2.0 && sum[1] == -n * (n - 1) / 2.0 && sum[3] == round * n, $"allreduce sum got {string.Join(',', sum)}");

                var max = new double[4];
                await comm.AllreduceAsync(vector, max, ReduceOperation.Max);
                var min = new double[4];
                await comm.AllreduceAsync(vector, min, ReduceOperation.Min);
                Expect(max[0] == n - 1 && min[1] == -(n - 1) && max[2] == (n - 1) * (n - 1), "allreduce min/max");

                var reduced = new double[] { -1, -1, -1, -1 };
                await comm.ReduceAsync(vector, reduced, ReduceOperation.Sum, root);
                Expect(r == root ? reduced[0] == n * (n - 1) / 2.0 : reduced[0] == -1, $"reduce got {reduced[0]}");

                var gathered = await comm.GatherAsync(r * 10, root);
                Expect(r == root ? gathered!.SequenceEqual(Enumerable.Range(0, n).Select(i => i * 10)) : gathered is null, "gather");

                var all = await comm.AllgatherAsync($"r{r}");
                Expect(all.SequenceEqual(Enumerable.Range(0, n).Select(i => $"r{i}")), "allgather");

                var concatenated = await comm.AllreduceAsync(r.ToString(System.Globalization.CultureInfo.InvariantCulture), (a, b) => a + b);
                Expect(concatenated == string.Concat(Enumerable.Range(0, n)), $"user-defined allreduce got {concatenated}");

                var piped = await comm.PipelineAsync(1, x => x * 2);
                Expect(piped == 1 << (r + 1), $"pipeline got {piped}");
            }
        });

        Assert.Empty(failures);
    }

    [Theory]
    [InlineData(SpmdExecution.Threads)]
    [InlineData(SpmdExecution.Tasks)]
    public async Task Receive_MessagesArriveOutOfOrder_MatchedBySource(SpmdExecution execution)
    {
        const int Size = 6;
        const int PerSource = 500;
        var wrong = 0;
        await RunAsync(Size, execution, async comm =>
        {
            if (comm.Rank == 0)
            {
                // Read the sources in reverse of any arrival order, each source's messages in sequence.
                for (var source = Size - 1; source >= 1; source--)
                {
                    for (var i = 0; i < PerSource; i++)
                    {
                        var (from, seq) = await comm.ReceiveAsync<(int, int)>(source);
                        if (from != source || seq != i)
                        {
                            Interlocked.Increment(ref wrong);
                        }
                    }
                }
            }
            else
            {
                for (var i = 0; i < PerSource; i++)
                {
                    comm.Send(0, (comm.Rank, i));
                }
            }
        });

        Assert.Equal(0, wrong);
    }

    [Fact]
    public void Allreduce_RepeatedRuns_BitIdenticalAndEqualToTheRankOrderFold()
    {
        const int Size = 7;
        const int Length = 1_000;
        double[] Contribution(int rank)
        {
            var random = new Random(1234 + rank);
            return [.. Enumerable.Range(0, Length).Select(_ => (random.NextDouble() - 0.5) * Math.Pow(10, random.Next(-12, 12)))];
        }

        var expected = Contribution(0);
        for (var r = 1; r < Size; r++)
        {
            var next = Contribution(r);
            for (var i = 0; i < Length; i++)
            {
                expected[i] += next[i];
            }
        }

        for (var run = 0; run < 10; run++)
        {
            var results = new double[Size][];
            Spmd.Run(Size, comm =>
            {
                var mine = Contribution(comm.Rank);
                // Skew the ranks' timing so arrival order differs from run to run.
                Thread.SpinWait(Random.Shared.Next(0, 20_000));
                var result = new double[Length];
                comm.Allreduce(mine, result, ReduceOperation.Sum);
                results[comm.Rank] = result;
            });

            Assert.All(results, result => Assert.Equal(
                expected.Select(BitConverter.DoubleToInt64Bits),
                result.Select(BitConverter.DoubleToInt64Bits)));
        }
    }

    [Theory]
    [InlineData(8, SpmdExecution.Threads)]
    [InlineData(16, SpmdExecution.Threads)]
    [InlineData(16, SpmdExecution.Tasks)]
    public async Task Exchange_OversubscribedManyStages_Completes(int size, SpmdExecution execution)
    {
        long total = 0;
        await RunAsync(size, execution, async comm =>
        {
            long local = 0;
            for (var stage = 0; stage < 2_000; stage++)
            {
                var (fromLeft, fromRight) = await comm.ExchangeAsync(stage, stage);
                local += fromLeft + fromRight;
            }

            Interlocked.Add(ref total, local);
        });

        Assert.Equal(size * 2L * (1999L * 2000 / 2), total);
    }

    [Fact]
    public void Run_RankThrows_OthersAbortAndTheOriginalIsRethrown()
    {
        var error = Assert.Throws<InvalidDataException>(() => Spmd.Run(4, comm =>
        {
            if (comm.Rank == 2)
            {
                throw new InvalidDataException("rank 2 failed");
            }

            // The others would wait forever for rank 2 without the abort.
            comm.Barrier();
        }));

        Assert.Equal("rank 2 failed", error.Message);
    }

    [Fact]
    public async Task RunAsync_RankThrows_OthersAbortAndTheOriginalIsRethrown()
    {
        var error = await Assert.ThrowsAsync<InvalidDataException>(() => Spmd.RunAsync(4, async comm =>
        {
            if (comm.Rank == 1)
            {
                throw new InvalidDataException("rank 1 failed");
            }

            await comm.BarrierAsync();
        })).OrHang();

        Assert.Equal("rank 1 failed", error.Message);
    }

    [Fact]
    public async Task Run_Cancelled_EveryRankStopsWithOperationCanceled()
    {
        using var cancellation = new CancellationTokenSource();
        var waiting = new CountdownEvent(3);

        var run = Task.Factory.StartNew(() => Spmd.Run(4, comm =>
        {
            if (comm.Rank == 0)
            {
                waiting.Wait(TestTimeouts.Hang);
                cancellation.Cancel();
                comm.Barrier();
                return;
            }

            waiting.Signal();
            comm.Receive<int>(0);
        }, new SpmdOptions { CancellationToken = cancellation.Token }), TaskCreationOptions.LongRunning);

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => run).OrHang();
    }

    [Fact]
    public void Run_SyncCollectiveUnderTaskExecution_IsRefused()
    {
        var error = Assert.Throws<InvalidOperationException>(() =>
            Spmd.RunAsync(2, comm =>
            {
                comm.Barrier();
                return ValueTask.CompletedTask;
            }).GetAwaiter().GetResult());

        Assert.Contains("Async", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Run_RanksFailDifferently_AllFailuresReported()
    {
        var error = Assert.Throws<AggregateException>(() => Spmd.Run(2, comm =>
            throw new InvalidDataException($"rank {comm.Rank}")));

        Assert.Equal(["rank 0", "rank 1"], error.InnerExceptions.Select(e => e.Message).Order());
    }

    [Fact]
    public void Run_DispatcherWithTooFewThreads_IsRefused()
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = 2 });

        Assert.Throws<ArgumentException>(() => Spmd.Run(4, _ => { }, new SpmdOptions { Dispatcher = dispatcher }));
    }

    [Fact]
    public void Allreduce_DifferentLengthsAcrossRanks_FailsClearly()
    {
        var error = Assert.Throws<InvalidOperationException>(() => Spmd.Run(2, comm =>
        {
            var values = new double[comm.Rank + 1];
            comm.Allreduce(values, ReduceOperation.Sum);
        }));

        Assert.Contains("different lengths", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void PaddedAccumulators_RanksAddConcurrently_SumIsExact()
    {
        var accumulators = new PaddedAccumulators(4);

        Spmd.Run(4, comm =>
        {
            for (var i = 0; i < 100_000; i++)
            {
                accumulators[comm.Rank] += 1;
            }
        });

        Assert.Equal(400_000, accumulators.Sum());
    }
}
