using System.Diagnostics;
using System.Threading.Channels;
using System.Threading.Tasks.Dataflow;

namespace Salsa.Bench.Experiments.Exchange;

/// <summary>
/// Shared slots plus <see cref="System.Threading.Barrier"/>: each rank writes into its neighbours'
/// inboxes (double-buffered by parity), meets the others at the barrier, then reads its own.
/// </summary>
public sealed class BarrierExchange : IExchangeRunner
{
    public string Name => "dotnet-barrier";

    public string Description => "System.Threading.Barrier over shared, padded slots (dedicated threads)";

    public double Measure(int ranks, int iterations)
    {
        // [rank][parity][0 = from left, 1 = from right], 16 longs apart (128 bytes).
        var inbox = new long[ranks * 2 * 2 * 16];
        using var barrier = new Barrier(ranks);
        var elapsed = new double[ranks];
        var threads = Enumerable.Range(0, ranks).Select(rank => new Thread(() =>
        {
            var left = (rank + ranks - 1) % ranks;
            var right = (rank + 1) % ranks;
            long sink = 0;
            void Step(int i)
            {
                var parity = i & 1;
                inbox[((right * 2 + parity) * 2 + 0) * 16] = i;
                inbox[((left * 2 + parity) * 2 + 1) * 16] = i;
                barrier.SignalAndWait();
                sink += inbox[((rank * 2 + parity) * 2 + 0) * 16] + inbox[((rank * 2 + parity) * 2 + 1) * 16];
            }

            for (var i = 0; i < Math.Max(iterations / 10, 100); i++)
            {
                Step(i);
            }

            barrier.SignalAndWait();
            var start = Stopwatch.GetTimestamp();
            for (var i = 0; i < iterations; i++)
            {
                Step(i);
            }

            elapsed[rank] = Stopwatch.GetElapsedTime(start).TotalMicroseconds;
            GC.KeepAlive(sink);
        })).ToArray();
        foreach (var t in threads)
        {
            t.Start();
        }

        foreach (var t in threads)
        {
            t.Join();
        }

        return elapsed.Max() / iterations;
    }

    public void Dispose()
    {
    }
}

/// <summary>One unbounded single-reader/single-writer <see cref="Channel{T}"/> per direction and neighbour pair; ranks are async tasks.</summary>
public sealed class ChannelsExchange : IExchangeRunner
{
    public string Name => "dotnet-channels";

    public string Description => "System.Threading.Channels, one SPSC channel per direction and pair; ranks are thread-pool tasks";

    public double Measure(int ranks, int iterations)
    {
        Channel<byte> Create() => Channel.CreateUnbounded<byte>(new UnboundedChannelOptions { SingleReader = true, SingleWriter = true });
        var rightward = Enumerable.Range(0, ranks).Select(_ => Create()).ToArray(); // rightward[r]: r → r+1
        var leftward = Enumerable.Range(0, ranks).Select(_ => Create()).ToArray();  // leftward[r]: r → r−1
        var elapsed = new double[ranks];
        Task.WaitAll([.. Enumerable.Range(0, ranks).Select(rank => Task.Run(async () =>
        {
            var left = (rank + ranks - 1) % ranks;
            async ValueTask Step()
            {
                rightward[rank].Writer.TryWrite(0);
                leftward[rank].Writer.TryWrite(0);
                await rightward[left].Reader.ReadAsync();
                await leftward[(rank + 1) % ranks].Reader.ReadAsync();
            }

            for (var i = 0; i < Math.Max(iterations / 10, 100); i++)
            {
                await Step();
            }

            var t0 = Stopwatch.GetTimestamp();
            for (var i = 0; i < iterations; i++)
            {
                await Step();
            }

            elapsed[rank] = Stopwatch.GetElapsedTime(t0).TotalMicroseconds;
        }))]);
        return elapsed.Max() / iterations;
    }

    public void Dispose()
    {
    }
}

/// <summary>One <see cref="BufferBlock{T}"/> per direction and neighbour pair (TPL Dataflow); ranks are async tasks.</summary>
public sealed class DataflowExchange : IExchangeRunner
{
    public string Name => "dotnet-dataflow";

    public string Description => "TPL Dataflow BufferBlock per direction and pair; ranks are thread-pool tasks";

    public double Measure(int ranks, int iterations)
    {
        var rightward = Enumerable.Range(0, ranks).Select(_ => new BufferBlock<byte>()).ToArray();
        var leftward = Enumerable.Range(0, ranks).Select(_ => new BufferBlock<byte>()).ToArray();
        var elapsed = new double[ranks];
        Task.WaitAll([.. Enumerable.Range(0, ranks).Select(rank => Task.Run(async () =>
        {
            var left = (rank + ranks - 1) % ranks;
            async Task Step()
            {
                rightward[rank].Post<byte>(0);
                leftward[rank].Post<byte>(0);
                await rightward[left].ReceiveAsync();
                await leftward[(rank + 1) % ranks].ReceiveAsync();
            }

            for (var i = 0; i < Math.Max(iterations / 10, 100); i++)
            {
                await Step();
            }

            var t0 = Stopwatch.GetTimestamp();
            for (var i = 0; i < iterations; i++)
            {
                await Step();
            }

            elapsed[rank] = Stopwatch.GetElapsedTime(t0).TotalMicroseconds;
        }))]);
        return elapsed.Max() / iterations;
    }

    public void Dispose()
    {
    }
}
