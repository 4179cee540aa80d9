using System.Diagnostics;
using System.Globalization;
using Salsa.Bench.Harness;
using Salsa.Ccr;
using Salsa.Rendering.Charts;

namespace Salsa.Bench.Experiments;

/// <summary>
/// Paper 001 Table 3 (figs. 9–12): arrays of doubles passed through ports at every stage of a
/// pipeline, the handler copying the payload to its destination: a new array inside the handler,
/// a fixed array per computation outside it, or element by element into stepped positions of a
/// large array. Bandwidth = bytes copied / (time with copies − time of the same stages without).
/// </summary>
public sealed class BandwidthExperiment : IExperiment
{
    private static readonly int[] Words = [1_000, 10_000, 100_000, 1_000_000, 10_000_000];

    private static readonly string[] Destinations = ["inside", "outside", "stepped"];

    // Paper 001 Table 3, GB/s summed over 4 cores, for 10^5 ("small") and 10^6 ("large") words, 2,500 stages.
    private static readonly (string Machine, double[] Small, double[] Large)[] SeedRows =
    [
        ("AMD Opteron, 4 cores", [0.89, 1.16, 1.14], [0.99, 1.11, 1.13]),
        ("Intel Xeon, 4 cores", [0.83, 1.89, 1.16], [0.76, 0.89, 0.89]),
    ];

    public string Name => "bandwidth";

    public string Description => "Paper 001 Table 3: double arrays of 10^3–10^7 words through ports, copied inside the handler, outside it, or stepped; GB/s summed over computations.";

    public Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var computations = Environment.ProcessorCount;
        var bytesPerComputation = context.Quick ? 400L << 20 : 4L << 30;
        var repeats = context.Quick ? 1 : 5;

        // No computation in the stages: the bandwidth is the difference of two runs, and any work
        // per stage only adds noise to both.
        const int units = 0;

        foreach (var words in Words)
        {
            var stages = (int)Math.Clamp(bytesPerComputation / (words * 8L), 4, 200_000);
            foreach (var destination in Destinations)
            {
                cancellationToken.ThrowIfCancellationRequested();
                Run(computations, words, Math.Min(stages, 4), units, destination, copy: true); // warm-up
                var copied = new List<double>();
                var bare = new List<double>();
                for (var r = 0; r < repeats; r++)
                {
                    bare.Add(Run(computations, words, stages, units, destination, copy: false));
                    copied.Add(Run(computations, words, stages, units, destination, copy: true));
                }

                var seconds = Statistics.Median(copied) - Statistics.Median(bare);
                var gigabytes = (double)computations * stages * words * sizeof(double) / 1e9;
                var @case = $"destination={destination},words={words},computations={computations}";
                context.Add(@case, "bandwidth_gb_per_s", gigabytes / Math.Max(seconds, 1e-9), "GB/s");
                context.Add(@case, "stages", stages, "stages");
                context.Add(@case, "copy_time_s", seconds, "s");
            }
        }

        Report(context, computations, units);
        return Task.CompletedTask;
    }

    private static double Run(int computations, int words, int stages, int units, string destination, bool copy)
    {
        using var dispatcher = new Dispatcher(new DispatcherOptions { ThreadCount = computations, Name = "bench bandwidth" });
        var payloads = Enumerable.Range(0, computations).Select(c => Enumerable.Range(0, words).Select(i => (double)(i + c)).ToArray()).ToArray();
        var outside = destination == "outside" ? Enumerable.Range(0, computations).Select(_ => new double[words]).ToArray() : [];
        var stepLength = Math.Max(2_000_000, 2 * words);
        var stepped = destination == "stepped" ? Enumerable.Range(0, computations).Select(_ => new double[stepLength]).ToArray() : [];
        var offsets = new int[computations * 16];
        var sink = new PaddedAccumulators(computations);
        using var done = new CountdownEvent(computations);
        var ports = Enumerable.Range(0, computations).Select(_ => new Port<(double[] Payload, int Stage)>()).ToArray();

        for (var c = 0; c < computations; c++)
        {
            var me = c;
            dispatcher.DefaultQueue.Activate(Arbiter.Receive(true, ports[me], ((double[] Payload, int Stage) message) =>
            {
                if (copy)
                {
                    switch (destination)
                    {
                        case "inside":
                            var fresh = new double[words];
                            message.Payload.AsSpan().CopyTo(fresh);
                            sink[me] += fresh[words - 1];
                            break;
                        case "outside":
                            message.Payload.AsSpan().CopyTo(outside[me]);
                            break;
                        default:
                            // Element by element, as the seed's stepped model, wrapping round.
                            ref var offset = ref offsets[me * 16];
                            if (offset + words > stepLength)
                            {
                                offset = 0;
                            }

                            var target = stepped[me];
                            var source = message.Payload;
                            for (var i = 0; i < source.Length; i++)
                            {
                                target[offset + i] = source[i];
                            }

                            offset += words;
                            break;
                    }
                }

                sink[me] += Work.Run(units, message.Stage);
                if (message.Stage + 1 < stages)
                {
                    ports[me].Post((message.Payload, message.Stage + 1));
                }
                else
                {
                    done.Signal();
                }
            }));
        }

        var start = Stopwatch.GetTimestamp();
        for (var c = 0; c < computations; c++)
        {
            ports[c].Post((payloads[c], 0));
        }

        done.Wait();
        var seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        GC.KeepAlive(sink.Sum());
        return seconds;
    }

    private static void Report(ExperimentContext context, int computations, int units)
    {
        context.Section("Our figures", string.Create(CultureInfo.InvariantCulture,
            $"{computations} computations (one per core), each a pipeline of stages through its own port; every stage copies the payload " +
            $"(no other work: {units} units). Bandwidth is summed over computations and takes out the same run without copies. Medians."));
        context.Table(["words", .. Destinations.Select(d => $"{d} (GB/s)")],
            Words.Select(w => (IReadOnlyList<string>)[
                w.ToString("N0", CultureInfo.InvariantCulture),
                .. Destinations.Select(d => ExperimentContext.Format(context.Value($"destination={d},words={w},computations={computations}", "bandwidth_gb_per_s"))),
            ]));
        context.Section("The seed's figures (paper 001 Table 3)", "GB/s summed over 4 cores; 10^5 words (small) and 10^6 words (large), 2,500 stages of 56–60 µs compute.");
        context.Table(["machine", .. Destinations.Select(d => $"{d}, small"), .. Destinations.Select(d => $"{d}, large")],
            SeedRows.Select(s => (IReadOnlyList<string>)[s.Machine, .. s.Small.Select(v => ExperimentContext.Format(v)), .. s.Large.Select(v => ExperimentContext.Format(v))]));

        var chart = new Chart("Port bandwidth by payload size", "payload (doubles)", "GB/s (all computations)") { XScale = Scale.Log10 };
        var xs = Words.Select(w => (double)w).ToArray();
        for (var d = 0; d < Destinations.Length; d++)
        {
            var ys = Words.Select(w => context.Value($"destination={Destinations[d]},words={w},computations={computations}", "bandwidth_gb_per_s")).ToArray();
            chart.AddLine($"ours, {Destinations[d]}", xs, ys, Figures.Ours(Figures.Colour(d)));
            var seed = SeedRows[0];
            chart.AddLine($"seed AMD, {Destinations[d]}", [1e5, 1e6], [seed.Small[d], seed.Large[d]], Figures.Seed(Figures.Colour(d)));
        }

        Figures.Save(context, chart);
    }
}
