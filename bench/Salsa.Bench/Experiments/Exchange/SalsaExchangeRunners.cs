using System.Diagnostics;
using Salsa.Ccr;

namespace Salsa.Bench.Experiments.Exchange;

/// <summary>Where <see cref="SalsaThreadsExchange"/>'s rank threads run.</summary>
public enum ThreadPlacement
{
    /// <summary>A dispatcher of the benchmark's, its threads left to the OS.</summary>
    Floating,

    /// <summary>A dispatcher of the benchmark's, its threads pinned to cores round robin.</summary>
    Pinned,

    /// <summary>No dispatcher given: what <see cref="Spmd.Run"/> makes for itself.</summary>
    SpmdRunDefault,
}

/// <summary>Salsa.Ccr under thread execution: a dispatcher thread per rank, blocking collectives.</summary>
public sealed class SalsaThreadsExchange(ThreadPlacement placement = ThreadPlacement.Floating) : IExchangeRunner
{
    private readonly Dictionary<int, Dispatcher> _dispatchers = [];

    public string Name => placement switch
    {
        ThreadPlacement.Pinned => "salsa-threads-pinned",
        ThreadPlacement.SpmdRunDefault => "salsa-threads-default",
        _ => "salsa-threads",
    };

    public string Description => placement switch
    {
        ThreadPlacement.Pinned => "Salsa.Ccr SPMD, thread execution with its threads pinned to cores, round robin",
        ThreadPlacement.SpmdRunDefault => "Salsa.Ccr SPMD, thread execution on the dispatcher Spmd.Run makes for itself (threads pinned only when there are no more ranks than cores)",
        _ => "Salsa.Ccr SPMD, thread execution (one dispatcher thread per rank; spin, yield, block)",
    };

    public double Measure(int ranks, int iterations)
    {
        var dispatcher = default(Dispatcher);
        if (placement != ThreadPlacement.SpmdRunDefault && !_dispatchers.TryGetValue(ranks, out dispatcher))
        {
            dispatcher = _dispatchers[ranks] = new Dispatcher(new DispatcherOptions
            {
                ThreadCount = ranks, Name = "bench exchange", IdleSpin = TimeSpan.Zero, PinThreads = placement == ThreadPlacement.Pinned,
            });
        }

        var elapsed = new double[ranks];
        Spmd.Run(ranks, comm =>
        {
            for (var i = 0; i < Math.Max(iterations / 10, 100); i++)
            {
                comm.Exchange<byte>(0, 0);
            }

            comm.Barrier();
            var start = Stopwatch.GetTimestamp();
            for (var i = 0; i < iterations; i++)
            {
                comm.Exchange<byte>(0, 0);
            }

            elapsed[comm.Rank] = Stopwatch.GetElapsedTime(start).TotalMicroseconds;
        }, new SpmdOptions { Dispatcher = dispatcher });
        return elapsed.Max() / iterations;
    }

    public void Dispose()
    {
        foreach (var dispatcher in _dispatchers.Values)
        {
            dispatcher.Dispose();
        }
    }
}

/// <summary>Salsa.Ccr under task execution: ranks multiplexed on one dispatcher thread per core.</summary>
public sealed class SalsaTasksExchange : IExchangeRunner
{
    private readonly Dispatcher _dispatcher = new(new DispatcherOptions { Name = "bench exchange tasks" });

    public string Name => "salsa-tasks";

    public string Description => $"Salsa.Ccr SPMD, task execution (ranks suspend; {Environment.ProcessorCount} dispatcher threads)";

    public double Measure(int ranks, int iterations)
    {
        var elapsed = new double[ranks];
        Spmd.RunAsync(ranks, async comm =>
        {
            for (var i = 0; i < Math.Max(iterations / 10, 100); i++)
            {
                await comm.ExchangeAsync<byte>(0, 0);
            }

            await comm.BarrierAsync();
            var start = Stopwatch.GetTimestamp();
            for (var i = 0; i < iterations; i++)
            {
                await comm.ExchangeAsync<byte>(0, 0);
            }

            elapsed[comm.Rank] = Stopwatch.GetElapsedTime(start).TotalMicroseconds;
        }, new SpmdOptions { Dispatcher = _dispatcher }).GetAwaiter().GetResult();
        return elapsed.Max() / iterations;
    }

    public void Dispose() => _dispatcher.Dispose();
}
