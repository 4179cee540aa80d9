using Salsa.Clustering;
using Salsa.Clustering.Partitions;
using Salsa.Grid.Partitions;

namespace Salsa.Grid.Tests;

/// <summary>
/// <see cref="SiloPartitions.Changed"/>, what a leaving silo waits on: no removal is ever missed by
/// a waiter that takes the task before reading the count, however the removals interleave.
/// </summary>
public sealed class SiloPartitionsTests
{
    private const int Trials = 2_000;
    private const int Threads = 4;
    private const int PerThread = 4;

    [Fact]
    public async Task Changed_RemovalsFromManyThreads_TheWaiterSeesEveryOne()
    {
        var rows = new DenseVectors([0.0, 0.0], 2, [1.0]);
        var partitions = Enumerable.Range(0, Threads * PerThread).Select(_ => new DensePartition(rows)).ToArray();
        for (var trial = 0; trial < Trials; trial++)
        {
            var held = new SiloPartitions();
            for (var i = 0; i < partitions.Length; i++)
            {
                held.Add($"p{i}", partitions[i]);
            }

            using var start = new Barrier(Threads + 1);
            var removers = Enumerable.Range(0, Threads).Select(t => Task.Factory.StartNew(() =>
            {
                start.SignalAndWait();
                for (var i = t * PerThread; i < (t + 1) * PerThread; i++)
                {
                    held.Remove($"p{i}", partitions[i]);
                }
            }, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default)).ToArray();

            start.SignalAndWait();
            var wakes = 0;
            while (true)
            {
                var changed = held.Changed;
                if (held.Count == 0)
                {
                    break;
                }

                // A removal missed (the task replaced before it was taken, and never completed) would
                // leave the waiter here with partitions gone: the wait would run out.
                await changed.WaitAsync(TimeSpan.FromSeconds(10));
                wakes++;
            }

            await Task.WhenAll(removers);
            Assert.InRange(wakes, 0, partitions.Length);
        }
    }

    [Fact]
    public void Remove_APartitionNotHeld_DoesNotSignal()
    {
        var held = new SiloPartitions();
        var rows = new DensePartition(new DenseVectors([0.0, 0.0], 2, [1.0]));
        held.Add("p0", rows);
        var changed = held.Changed;

        held.Remove("p1", rows);
        held.Remove("p0", new DensePartition(new DenseVectors([0.0, 0.0], 2, [1.0])));

        Assert.False(changed.IsCompleted);
        held.Remove("p0", rows);
        Assert.True(changed.IsCompleted);
        Assert.Equal(0, held.Count);
    }
}
