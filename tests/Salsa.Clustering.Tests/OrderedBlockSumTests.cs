using Salsa.Ccr;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Tests;

/// <summary>The block-ordered reduction with balancing: every block once per step, whoever computes it, same sums.</summary>
public sealed class OrderedBlockSumTests
{
    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(5)]
    [InlineData(8)]
    public void Balanced_EveryBlockExactlyOncePerStep_WhateverTheTiming(int size)
    {
        const int steps = 300;
        var plan = new BlockPlan(1_000, 16);
        var sums = new OrderedBlockSum(plan, 1);
        var counts = new int[steps * plan.Blocks];
        var byOthers = 0;

        Spmd.Run(size, comm =>
        {
            var random = new Random(comm.Rank);
            var total = new double[1];
            var (own, ownEnd) = plan.BlocksOf(comm.Rank, comm.Size);
            for (var step = 0; step < steps; step++)
            {
                sums.ForEachBlock(comm.Rank, comm.Size, step, balance: true, (block, _, _) =>
                {
                    Interlocked.Increment(ref counts[step * plan.Blocks + block]);
                    if (block < own || block >= ownEnd)
                    {
                        Interlocked.Increment(ref byOthers);
                    }

                    Thread.SpinWait(random.Next(200)); // uneven blocks
                });
                sums.Combine(comm, step, total);
            }
        });

        Assert.All(counts, c => Assert.Equal(1, c));
        if (size == 1)
        {
            Assert.Equal(0, byOthers);
        }
    }

    [Fact]
    public void Balanced_ARankThatHasNotStarted_HasItsBlocksTakenByTheOthers()
    {
        var plan = new BlockPlan(640, 64);
        var sums = new OrderedBlockSum(plan, 1);
        var computedBy = new int[plan.Blocks];
        using var rankZeroDone = new ManualResetEventSlim();

        Spmd.Run(2, comm =>
        {
            if (comm.Rank == 1)
            {
                rankZeroDone.Wait(TestContext.Current.CancellationToken); // a rank held up (a preempted core)
            }

            sums.ForEachBlock(comm.Rank, comm.Size, 0, balance: true, (block, _, _) => computedBy[block] = comm.Rank + 1);
            if (comm.Rank == 0)
            {
                rankZeroDone.Set();
            }

            comm.Barrier();
        });

        Assert.All(computedBy, rank => Assert.Equal(1, rank));
    }

    [Fact]
    public void Static_EachRankComputesItsOwnBlocksOnly()
    {
        var plan = new BlockPlan(640, 64);
        var sums = new OrderedBlockSum(plan, 1);
        var computedBy = new int[plan.Blocks];

        Spmd.Run(2, comm =>
        {
            sums.ForEachBlock(comm.Rank, comm.Size, 0, balance: false, (block, _, _) => computedBy[block] = comm.Rank + 1);
            comm.Barrier();
        });

        Assert.Equal([.. Enumerable.Repeat(1, 5), .. Enumerable.Repeat(2, 5)], computedBy);
    }

    [Theory]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(7)]
    public void Reduce_BalancedOrNot_BitIdenticalSums(int size)
    {
        var random = new Random(42);
        var values = Enumerable.Range(0, 5_000).Select(_ => random.NextDouble() * Math.Pow(10, random.Next(-8, 8))).ToArray();
        var plan = new BlockPlan(values.Length, 37);

        double[] SumOver(bool balance)
        {
            var sums = new OrderedBlockSum(plan, 3);
            var results = new double[size][];
            Spmd.Run(size, comm =>
            {
                var delay = new Random(comm.Rank + 1);
                var total = new double[3];
                for (var step = 0; step < 20; step++)
                {
                    sums.Reduce(comm, step, (start, end, partial) =>
                    {
                        Thread.SpinWait(delay.Next(300));
                        for (var i = start; i < end; i++)
                        {
                            partial[0] += values[i];
                            partial[1] += values[i] * values[i];
                            partial[2] = Math.Max(partial[2], values[i]);
                        }
                    }, 3, total, balance);
                }

                results[comm.Rank] = total;
            });

            Assert.All(results, r => Assert.Equal(results[0], r)); // every rank folds the same
            return results[0];
        }

        var sequential = new double[3];
        for (var b = 0; b < plan.Blocks; b++)
        {
            var (start, end) = plan.Block(b);
            var block = new double[3];
            for (var i = start; i < end; i++)
            {
                block[0] += values[i];
                block[1] += values[i] * values[i];
                block[2] = Math.Max(block[2], values[i]);
            }

            for (var j = 0; j < 3; j++)
            {
                sequential[j] += block[j];
            }
        }

        Assert.Equal(sequential, SumOver(balance: true));
        Assert.Equal(sequential, SumOver(balance: false));
    }
}
