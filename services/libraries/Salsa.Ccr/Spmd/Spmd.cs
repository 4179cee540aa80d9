using System.Runtime.ExceptionServices;
using Salsa.Ccr.Internal;

namespace Salsa.Ccr;

/// <summary>
/// Runs loosely synchronous computations: <c>size</c> long-lived ranks executing the same body,
/// exchanging messages and meeting at collectives (paper 000 section III, paper 001's MPI engine).
/// </summary>
public static class Spmd
{
    /// <summary>Largest group size accepted.</summary>
    public const int MaxSize = 1024;

    /// <summary>
    /// Runs <paramref name="size"/> ranks under thread execution and returns when all have finished.
    /// Without <see cref="SpmdOptions.Dispatcher"/> the ranks get a dispatcher of their own: a thread
    /// per rank, each pinned to a core when there are no more ranks than cores. When a rank throws,
    /// the others are aborted at their next wait and the original exception is rethrown here (an
    /// <see cref="AggregateException"/> when several ranks failed independently).
    /// </summary>
    /// <exception cref="InvalidOperationException">
    /// The ranks called different collectives (or roots, or value types) as the same collective, or
    /// the run could never finish (a rank returned while others wait for it, a receive with no send):
    /// the message says what each rank called or waits for.
    /// </exception>
    public static void Run(int size, Action<Communicator> body, SpmdOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(body);
        options ??= new SpmdOptions();
        CheckSize(size);
        var owned = options.Dispatcher is null;
        var dispatcher = options.Dispatcher ?? new Dispatcher(new DispatcherOptions
        {
            ThreadCount = size,
            Name = "Salsa.Ccr SPMD",
            IdleSpin = TimeSpan.Zero,
            // A rank per core keeps its cache. More ranks than cores share the cores anyway, and pinned
            // they cannot move away from a core another process keeps busy: beside one busy process,
            // 8 pinned ranks on 2 cores took 95–210 µs an exchange, floating ones 4–9 µs.
            PinThreads = size <= Environment.ProcessorCount,
        });
        try
        {
            if (dispatcher.ThreadCount < size)
            {
                ThrowHelper.Argument(nameof(options),
                    $"Thread execution needs a dispatcher thread per rank: {size} ranks, {dispatcher.ThreadCount} threads. Use RunAsync (task execution) to multiplex ranks.");
            }

            if (dispatcher.IsDispatcherThread)
            {
                ThrowHelper.InvalidOperation("Spmd.Run waits for its ranks; it cannot be called from a thread of the dispatcher that runs them.");
            }

            var group = new SpmdGroup(size, SpmdExecution.Threads, options, dispatcher.ThreadCount);
            var caller = ExecutionContext.Capture();
            var failures = new Exception?[size];
            using var done = new CountdownEvent(size);
            using var watch = group.StartDeadlockWatch();
            using var cancellation = options.CancellationToken.UnsafeRegister(
                static (s, token) => ((SpmdGroup)s!).Abort(new OperationCanceledException(token)), group);
            CcrTelemetry.SpmdRuns.Add(1);
            for (var rank = 0; rank < size; rank++)
            {
                var communicator = new Communicator(group, rank);
                var index = rank;
                var started = dispatcher.DefaultQueue.TryEnqueue(new ActionTask(() =>
                {
                    try
                    {
                        InCallerFlow(caller, () =>
                        {
                            var outer = RankFlow.Enter(group.Ranks[index].Waiter);
                            try
                            {
                                body(communicator);
                            }
                            finally
                            {
                                RankFlow.Exit(outer);
                            }
                        });

                        group.RankReturned(index);
                    }
#pragma warning disable CA1031 // Every rank's failure is collected and rethrown by Run.
                    catch (Exception exception)
#pragma warning restore CA1031
                    {
                        failures[index] = exception;
                        group.Abort(exception);
                    }
                    finally
                    {
                        done.Signal();
                    }
                }));
                if (!started)
                {
                    failures[index] = new InvalidOperationException("The dispatcher refused a rank (closed or full).");
                    group.Abort(failures[index]!);
                    done.Signal();
                }
            }

            done.Wait();
            ThrowFailures(failures, group);
        }
        finally
        {
            if (owned)
            {
                dispatcher.Dispose();
            }
        }
    }

    /// <summary>
    /// Runs <paramref name="size"/> ranks under task execution: each rank is an async handler on the
    /// dispatcher (by default a new one with a thread per core), suspended rather than blocked while
    /// it waits, so any number of ranks share the cores without OS context switches.
    /// </summary>
    /// <exception cref="InvalidOperationException">As for <see cref="Run"/>: mismatched collectives or a deadlock, reported instead of hanging.</exception>
    public static async Task RunAsync(int size, Func<Communicator, ValueTask> body, SpmdOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(body);
        options ??= new SpmdOptions();
        CheckSize(size);
        var owned = options.Dispatcher is null;
        var dispatcher = options.Dispatcher ?? new Dispatcher(new DispatcherOptions { Name = "Salsa.Ccr SPMD tasks" });
        try
        {
            var group = new SpmdGroup(size, SpmdExecution.Tasks, options, dispatcher.ThreadCount);
            var caller = ExecutionContext.Capture();
            var failures = new Exception?[size];
            using var watch = group.StartDeadlockWatch();
            using var cancellation = options.CancellationToken.UnsafeRegister(
                static (s, token) => ((SpmdGroup)s!).Abort(new OperationCanceledException(token)), group);
            CcrTelemetry.SpmdRuns.Add(1);
            var ranks = new Task[size];
            for (var rank = 0; rank < size; rank++)
            {
                var communicator = new Communicator(group, rank);
                var index = rank;
                ranks[rank] = dispatcher.DefaultQueue.Spawn(async () =>
                {
                    try
                    {
                        // The body's code up to its first suspension runs here; what follows runs
                        // from the rank's operations, which mark the flow again (RankOperation).
                        var running = default(ValueTask);
                        InCallerFlow(caller, () =>
                        {
                            var outer = RankFlow.Enter(group.Ranks[index].Waiter);
                            try
                            {
                                running = body(communicator);
                            }
                            finally
                            {
                                RankFlow.Exit(outer);
                            }
                        });

                        await running.ConfigureAwait(true);
                        group.RankReturned(index);
                    }
#pragma warning disable CA1031 // Every rank's failure is collected and rethrown by RunAsync.
                    catch (Exception exception)
#pragma warning restore CA1031
                    {
                        failures[index] = exception;
                        group.Abort(exception);
                    }
                });
            }

            try
            {
                await Task.WhenAll(ranks).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (Array.TrueForAll(failures, f => f is null))
            {
                throw new OperationCanceledException("The dispatcher running the ranks was disposed.");
            }

            ThrowFailures(failures, group);
        }
        finally
        {
            if (owned)
            {
                dispatcher.Dispose();
            }
        }
    }

    // A rank works for its caller: it runs in the caller's ExecutionContext (its AsyncLocals — the
    // tenant, the job's log and CPU account, the current span), as a thread-pool item would.
    private static void InCallerFlow(ExecutionContext? caller, Action rank)
    {
        if (caller is null)
        {
            rank();
        }
        else
        {
            ExecutionContext.Run(caller, static state => ((Action)state!)(), rank);
        }
    }

    private static void CheckSize(int size)
    {
        if (size is < 1 or > MaxSize)
        {
            ThrowHelper.ArgumentOutOfRange(nameof(size), size, $"An SPMD group has between 1 and {MaxSize} ranks.");
        }
    }

    private static void ThrowFailures(Exception?[] failures, SpmdGroup group)
    {
        // Ranks that only saw the abort are echoes of the real failure; report the originals.
        var primary = failures.Where(f => f is not null and not SpmdAbortedException && !(f is OperationCanceledException && group.AbortReason is OperationCanceledException)).ToList();

        // Ranks that fail the same way (the same bad input seen by all) are one failure, not several.
        if (primary.Count > 1 && primary.All(f => f!.GetType() == primary[0]!.GetType() && f.Message == primary[0]!.Message))
        {
            primary.RemoveRange(1, primary.Count - 1);
        }

        if (primary.Count == 1)
        {
            ExceptionDispatchInfo.Capture(primary[0]!).Throw();
        }

        if (primary.Count > 1)
        {
            throw new AggregateException("Several ranks failed.", primary!);
        }

        if (group.Deadlock is { } deadlock)
        {
            throw deadlock;
        }

        if (group.AbortReason is OperationCanceledException cancelled)
        {
            throw new OperationCanceledException("The SPMD run was cancelled.", cancelled, cancelled.CancellationToken);
        }

        if (failures.FirstOrDefault(f => f is not null) is { } echo)
        {
            ExceptionDispatchInfo.Capture(echo).Throw();
        }
    }
}
