using System.Diagnostics;
using System.Globalization;
using System.Runtime.CompilerServices;
using Salsa.Bench.Harness;
using Salsa.Ccr;
using Salsa.Rendering.Charts;

namespace Salsa.Bench.Experiments;

/// <summary>
/// Paper 000 Table II: each thread adds pseudo-random numbers into its own element A[i·S] of a shared
/// array. At separations below a cache line the threads' elements share lines and every add bounces
/// the line between cores (false sharing). Our runtime's own accumulators and reductions are padded
/// and must show no such penalty.
/// </summary>
public sealed class CacheLineExperiment : IExperiment
{
    private static readonly int[] Separations = [1, 4, 8, 1024];

    // Paper 000 Table II (mean µs per run of the summation): Intel8b, Vista, C# with CCR / Locks; Fedora C.
    private static readonly (string Label, double[] Means)[] SeedRows =
    [
        ("seed: C# CCR, Intel8b Vista", [8.03, 3.04, 0.884, 0.884]),
        ("seed: C# Locks, Intel8b Vista", [13.0, 3.08, 0.883, 0.883]),
        ("seed: C, Intel8b Fedora", [1.50, 0.69, 0.307, 0.307]),
        ("seed: C, Intel8c Redhat", [0.441, 0.423, 0.423, 0.423]),
    ];

    public string Name => "cache-line";

    public string Description => "Paper 000 Table II: concurrent summation into A[i·S] for S = 1, 4, 8, 1024 doubles — threads vs locks vs Salsa.Ccr (and its padded accumulators).";

    public Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var threads = Environment.ProcessorCount;
        var additions = context.Quick ? 2_000_000 : 20_000_000;
        var repeats = context.Quick ? 3 : 7;
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = threads, Name = "bench cache-line", IdleSpin = TimeSpan.Zero });
        (string Name, string Description, Func<int, double> Run)[] impls =
        [
            ("threads", "plain OS threads, started and joined per run", s => PlainThreads(threads, s, additions, useLock: false)),
            ("locks", "OS threads that meet at a Monitor-based start and finish rendezvous", s => PlainThreads(threads, s, additions, useLock: true)),
            ("salsa", "Salsa.Ccr SPMD ranks adding into the same user array A[rank·S]", s => SalsaRanks(dispatcher, threads, s, additions)),
            ("salsa-accumulators", "Salsa.Ccr SPMD ranks adding into the runtime's PaddedAccumulators (S does not apply)", _ => SalsaAccumulators(dispatcher, threads, additions)),
            ("salsa-allreduce", "Salsa.Ccr SPMD ranks summing locally and combining with Allreduce every 4,096 adds", _ => SalsaAllreduce(dispatcher, threads, additions)),
        ];

        foreach (var separation in Separations)
        {
            var samples = impls.ToDictionary(i => i.Name, _ => new List<double>());
            foreach (var (name, _, run) in impls)
            {
                run(separation); // warm-up
            }

            for (var r = 0; r < repeats; r++)
            {
                foreach (var (name, _, run) in impls)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                    samples[name].Add(run(separation) / additions * 1e9);
                }
            }

            foreach (var (name, _, _) in impls)
            {
                var @case = $"impl={name},separation={separation},threads={threads}";
                context.Add(@case, "ns_per_add_mean", Statistics.Mean(samples[name]), "ns");
                context.Add(@case, "ns_per_add_stddev", Statistics.StandardDeviation(samples[name]), "ns");
            }
        }

        foreach (var (name, _, _) in impls)
        {
            context.Add($"impl={name},threads={threads}", "ratio_s1_to_s1024",
                context.Value($"impl={name},separation=1,threads={threads}", "ns_per_add_mean") /
                context.Value($"impl={name},separation=1024,threads={threads}", "ns_per_add_mean"), "ratio");
        }

        Report(context, impls.Select(i => (i.Name, i.Description)).ToArray(), threads, additions, repeats);
        return Task.CompletedTask;
    }

    private static void Report(ExperimentContext context, (string Name, string Description)[] impls, int threads, int additions, int repeats)
    {
        context.Section("Our figures", string.Create(CultureInfo.InvariantCulture,
            $"{threads} threads (one per core), {additions:N0} additions each; nanoseconds per addition, mean ± standard deviation of {repeats} runs. " +
            $"The last column is the false-sharing penalty: time at S = 1 over time at S = 1024."));
        context.Table(["implementation", .. Separations.Select(s => $"S = {s}"), "S=1 ÷ S=1024"],
            impls.Select(i => (IReadOnlyList<string>)[
                i.Name,
                .. Separations.Select(s => $"{ExperimentContext.Format(context.Value($"impl={i.Name},separation={s},threads={threads}", "ns_per_add_mean"))} ± {ExperimentContext.Format(context.Value($"impl={i.Name},separation={s},threads={threads}", "ns_per_add_stddev"), 2)}"),
                ExperimentContext.Format(context.Value($"impl={i.Name},threads={threads}", "ratio_s1_to_s1024")),
            ]));
        context.Paragraph(string.Join("\n", impls.Select(i => $"- `{i.Name}`: {i.Description}.")));
        context.Section("The seed's figures (paper 000 Table II)", "Mean run time of the summation (µs, the paper's unit of work) with 8 threads on 8 cores.");
        context.Table(["runtime", .. Separations.Select(s => $"S = {s}"), "S=1 ÷ S=1024"],
            SeedRows.Select(r => (IReadOnlyList<string>)[r.Label, .. r.Means.Select(m => ExperimentContext.Format(m)), ExperimentContext.Format(r.Means[0] / r.Means[3])]));

        var categories = Separations.Select(s => $"S = {s}").ToArray();
        var chart = new Chart("False sharing: concurrent summation into A[i·S]", "separation S (doubles)", "ns per addition") { YScale = Scale.Log10 };
        for (var i = 0; i < impls.Length; i++)
        {
            var values = Separations.Select(s => context.Value($"impl={impls[i].Name},separation={s},threads={threads}", "ns_per_add_mean")).ToArray();
            var errors = Separations.Select(s => context.Value($"impl={impls[i].Name},separation={s},threads={threads}", "ns_per_add_stddev")).ToArray();
            chart.AddBars(impls[i].Name, categories, values, Figures.Bars(Figures.Colour(i)), errors);
        }

        Figures.Save(context, chart);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static double Sum(double[] array, int index, int additions, uint seed)
    {
        // A 32-bit LCG: cheap, and the compiler cannot hoist the store out of the loop.
        ref var slot = ref array[index];
        var state = seed;
        for (var i = 0; i < additions; i++)
        {
            state = state * 1664525u + 1013904223u;
            slot += state * (1.0 / uint.MaxValue);
        }

        return slot;
    }

    private static double PlainThreads(int threads, int separation, int additions, bool useLock)
    {
        var array = new double[(threads + 1) * separation + 16];
        var gate = new object();
        var ready = 0;
        var finished = 0;
        var go = false;
        var start = 0L;
        var workers = Enumerable.Range(0, threads).Select(t => new Thread(() =>
        {
            if (useLock)
            {
                lock (gate)
                {
                    ready++;
                    Monitor.PulseAll(gate);
                    while (!go)
                    {
                        Monitor.Wait(gate);
                    }
                }
            }

            Sum(array, t * separation, additions, (uint)t + 1);

            if (useLock)
            {
                lock (gate)
                {
                    finished++;
                    Monitor.PulseAll(gate);
                }
            }
        })).ToArray();

        if (useLock)
        {
            foreach (var w in workers)
            {
                w.Start();
            }

            lock (gate)
            {
                while (ready < threads)
                {
                    Monitor.Wait(gate);
                }

                start = Stopwatch.GetTimestamp();
                go = true;
                Monitor.PulseAll(gate);
                while (finished < threads)
                {
                    Monitor.Wait(gate);
                }
            }

            var elapsed = Stopwatch.GetElapsedTime(start).TotalSeconds;
            foreach (var w in workers)
            {
                w.Join();
            }

            return elapsed;
        }

        start = Stopwatch.GetTimestamp();
        foreach (var w in workers)
        {
            w.Start();
        }

        foreach (var w in workers)
        {
            w.Join();
        }

        return Stopwatch.GetElapsedTime(start).TotalSeconds;
    }

    private static double SalsaRanks(Dispatcher dispatcher, int ranks, int separation, int additions)
    {
        var array = new double[(ranks + 1) * separation + 16];
        var elapsed = new double[ranks];
        Spmd.Run(ranks, comm =>
        {
            comm.Barrier();
            var start = Stopwatch.GetTimestamp();
            Sum(array, comm.Rank * separation, additions, (uint)comm.Rank + 1);
            comm.Barrier();
            elapsed[comm.Rank] = Stopwatch.GetElapsedTime(start).TotalSeconds;
        }, new SpmdOptions { Dispatcher = dispatcher });
        return elapsed.Max();
    }

    private static double SalsaAccumulators(Dispatcher dispatcher, int ranks, int additions)
    {
        var accumulators = new PaddedAccumulators(ranks);
        var elapsed = new double[ranks];
        Spmd.Run(ranks, comm =>
        {
            comm.Barrier();
            var start = Stopwatch.GetTimestamp();
            ref var slot = ref accumulators[comm.Rank];
            var state = (uint)comm.Rank + 1;
            for (var i = 0; i < additions; i++)
            {
                state = state * 1664525u + 1013904223u;
                slot += state * (1.0 / uint.MaxValue);
            }

            comm.Barrier();
            elapsed[comm.Rank] = Stopwatch.GetElapsedTime(start).TotalSeconds;
        }, new SpmdOptions { Dispatcher = dispatcher });
        GC.KeepAlive(accumulators.Sum());
        return elapsed.Max();
    }

    private static double SalsaAllreduce(Dispatcher dispatcher, int ranks, int additions)
    {
        const int Block = 4_096;
        var elapsed = new double[ranks];
        Spmd.Run(ranks, comm =>
        {
            comm.Barrier();
            var start = Stopwatch.GetTimestamp();
            var state = (uint)comm.Rank + 1;
            var total = 0.0;
            for (var done = 0; done < additions; done += Block)
            {
                var local = 0.0;
                for (var i = 0; i < Block; i++)
                {
                    state = state * 1664525u + 1013904223u;
                    local += state * (1.0 / uint.MaxValue);
                }

                total += comm.Allreduce(local, ReduceOperation.Sum);
            }

            elapsed[comm.Rank] = Stopwatch.GetElapsedTime(start).TotalSeconds;
            GC.KeepAlive(total);
        }, new SpmdOptions { Dispatcher = dispatcher });
        return elapsed.Max();
    }
}
