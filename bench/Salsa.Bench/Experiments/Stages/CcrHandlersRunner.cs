using System.Diagnostics;
using Salsa.Bench.Harness;
using Salsa.Ccr;

namespace Salsa.Bench.Experiments.Stages;

/// <summary>
/// The seed's own structure: every stage is a handler spawned by a port arbiter (Receive, two-item
/// MultipleItemReceive, or a join of the left and right ports for Exchange) on a dispatcher.
/// </summary>
public sealed class CcrHandlersRunner : IStagesRunner
{
    public string Name => "ccr-handlers";

    public string Description => "ports and persistent arbiters; each stage is a handler run by the dispatcher (the seed's model, fig. 15a)";

    public double Run(StagePattern pattern, int computations, bool match, int stages, int units)
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions
        {
            ThreadCount = match ? computations : Environment.ProcessorCount,
            Name = "bench stages",
        });
        var queue = dispatcher.DefaultQueue;
        using var done = new CountdownEvent(computations);
        var sink = new PaddedAccumulators(computations);
        var fromLeft = Enumerable.Range(0, computations).Select(_ => new Port<int>()).ToArray();
        var fromRight = Enumerable.Range(0, computations).Select(_ => new Port<int>()).ToArray();
        int Right(int c) => (c + 1) % computations;
        int Left(int c) => (c + computations - 1) % computations;

        // Each computation counts its own stages: a join may pair messages sent at different stages
        // by the two neighbours, so their numbers cannot say when to stop; and with persistent
        // receivers two stages of one computation can run at once, hence the interlocked count.
        var completed = new int[computations * 32];
        for (var c = 0; c < computations; c++)
        {
            var me = c;
            void Stage(int stage, Action<int> send)
            {
                sink[me] += Work.Run(units, stage);
                if (Interlocked.Increment(ref completed[me * 32]) < stages)
                {
                    send(stage + 1);
                }
                else
                {
                    done.Signal();
                }
            }

            queue.Activate(pattern switch
            {
                StagePattern.Pipeline => Arbiter.Receive(true, fromLeft[me], (int s) => Stage(s, next => fromLeft[me].Post(next))),
                StagePattern.Shift => Arbiter.Receive(true, fromLeft[me], (int s) => Stage(s, next => fromLeft[Right(me)].Post(next))),
                StagePattern.TwoShifts => Arbiter.MultipleItemReceive(true, fromLeft[me], 2, (int[] s) => Stage(s[0], next =>
                {
                    fromLeft[Right(me)].Post(next);
                    fromLeft[Right(me)].Post(next);
                })),
                _ => Arbiter.JoinedReceive(true, fromLeft[me], fromRight[me], (int s, int _) => Stage(s, next =>
                {
                    fromRight[Left(me)].Post(next);
                    fromLeft[Right(me)].Post(next);
                })),
            });
        }

        var start = Stopwatch.GetTimestamp();
        for (var c = 0; c < computations; c++)
        {
            fromLeft[c].Post(0);
            if (pattern == StagePattern.TwoShifts)
            {
                fromLeft[c].Post(0);
            }

            if (pattern == StagePattern.Exchange)
            {
                fromRight[c].Post(0);
            }
        }

        done.Wait();
        var seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        GC.KeepAlive(sink.Sum());
        return seconds;
    }
}
