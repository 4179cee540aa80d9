using System.Diagnostics;
using Salsa.Bench.Harness;
using Salsa.Ccr;

namespace Salsa.Bench.Experiments.Stages;

/// <summary>
/// The MPI model (fig. 15c) on Salsa.Ccr's SPMD layer: long-running ranks meeting at each stage.
/// "match" runs them under thread execution (a dispatcher thread each); "default" under task
/// execution on one dispatcher thread per core.
/// </summary>
public sealed class SpmdStagesRunner : IStagesRunner
{
    public string Name => "spmd";

    public string Description => "long-running SPMD ranks (Send/Receive, Shift, Exchange); match = thread execution, default = task execution on one thread per core";

    public double Run(StagePattern pattern, int computations, bool match, int stages, int units)
    {
        var sink = new PaddedAccumulators(computations);
        using var dispatcher = new Dispatcher(new DispatcherOptions
        {
            ThreadCount = match ? computations : Environment.ProcessorCount,
            Name = "bench spmd stages",
            IdleSpin = match ? TimeSpan.Zero : TimeSpan.FromMicroseconds(50),
        });
        var options = new SpmdOptions { Dispatcher = dispatcher };
        var start = Stopwatch.GetTimestamp();
        if (match)
        {
            Spmd.Run(computations, comm =>
            {
                for (var stage = 0; stage < stages; stage++)
                {
                    sink[comm.Rank] += Work.Run(units, stage);
                    switch (pattern)
                    {
                        case StagePattern.Pipeline:
                            comm.Send(comm.Rank, stage);
                            comm.Receive<int>(comm.Rank);
                            break;
                        case StagePattern.Shift:
                            comm.Shift(stage);
                            break;
                        case StagePattern.TwoShifts:
                            comm.Send(comm.Neighbour(1), stage);
                            comm.Send(comm.Neighbour(1), stage);
                            comm.Receive<int>(comm.Neighbour(-1));
                            comm.Receive<int>(comm.Neighbour(-1));
                            break;
                        default:
                            comm.Exchange(stage, stage);
                            break;
                    }
                }
            }, options);
        }
        else
        {
            Spmd.RunAsync(computations, async comm =>
            {
                for (var stage = 0; stage < stages; stage++)
                {
                    sink[comm.Rank] += Work.Run(units, stage);
                    switch (pattern)
                    {
                        case StagePattern.Pipeline:
                            comm.Send(comm.Rank, stage);
                            await comm.ReceiveAsync<int>(comm.Rank);
                            break;
                        case StagePattern.Shift:
                            await comm.ShiftAsync(stage);
                            break;
                        case StagePattern.TwoShifts:
                            comm.Send(comm.Neighbour(1), stage);
                            comm.Send(comm.Neighbour(1), stage);
                            await comm.ReceiveAsync<int>(comm.Neighbour(-1));
                            await comm.ReceiveAsync<int>(comm.Neighbour(-1));
                            break;
                        default:
                            await comm.ExchangeAsync(stage, stage);
                            break;
                    }
                }
            }, options).GetAwaiter().GetResult();
        }

        var seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        GC.KeepAlive(sink.Sum());
        return seconds;
    }
}
