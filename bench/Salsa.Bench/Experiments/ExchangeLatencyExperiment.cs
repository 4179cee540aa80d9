using Salsa.Bench.Experiments.Exchange;
using Salsa.Bench.Harness;
using Salsa.Rendering.Charts;
using ScottPlot;

namespace Salsa.Bench.Experiments;

/// <summary>
/// Paper 000 Table III: latency of the MPI Exchange collective (zero-size messages to and from both
/// ring neighbours) at 2, 4 and 8 ranks, for Salsa.Ccr, three .NET primitives and Open MPI in C.
/// </summary>
public sealed class ExchangeLatencyExperiment : IExperiment
{
    private static readonly int[] RankCounts = [2, 4, 8];

    // Paper 000 Table III (µs): the seed's runtimes on its 4- and 8-core machines.
    private static readonly (string Runtime, string Machine, int Grains, double Latency)[] SeedTable =
    [
        ("CCR (C#, threads)", "Intel8b, Vista", 8, 20.2),
        ("CCR (C#, threads)", "AMD4, XP", 4, 16.3),
        ("CCR (C#, threads)", "Intel4, XP", 4, 25.8),
        ("MPICH2 (C, processes)", "Intel8c, Redhat", 8, 40.0),
        ("MPICH2 Nemesis (C, processes)", "Intel8c, Redhat", 8, 4.21),
        ("MPICH2 (C, processes)", "AMD4, Redhat", 4, 39.3),
        ("mpiJava (Java, processes)", "Intel8b, Fedora", 8, 100),
        ("MPJ Express (Java, processes)", "Intel8b, Fedora", 8, 142),
    ];

    public string Name => "exchange-latency";

    public string Description => "Paper 000 Table III: Exchange latency at 2, 4, 8 ranks — Salsa.Ccr vs .NET primitives vs Open MPI (C).";

    public Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var repeats = context.Quick ? 3 : 7;
        IExchangeRunner[] runners =
        [
            new SalsaThreadsExchange(), new SalsaTasksExchange(), new BarrierExchange(),
            new ChannelsExchange(), new DataflowExchange(), new OpenMpiExchange(),
        ];
        var failures = new Dictionary<string, string>();
        try
        {
            foreach (var ranks in RankCounts)
            {
                var samples = ExchangeSampling.Sample(runners, ranks, repeats, context.Quick ? 0.15 : 0.6, 2_000, failures, cancellationToken);
                foreach (var runner in runners.Where(r => samples[r.Name].Count > 0))
                {
                    var s = samples[runner.Name];
                    context.Add($"impl={runner.Name},ranks={ranks}", "latency_us", Statistics.Median(s), "us");
                    context.Add($"impl={runner.Name},ranks={ranks}", "latency_stddev_us", Statistics.StandardDeviation(s), "us");
                }

                var mpi = context.Value($"impl=openmpi,ranks={ranks}", "latency_us");
                if (!double.IsNaN(mpi))
                {
                    foreach (var runner in runners.Where(r => r is not OpenMpiExchange && samples[r.Name].Count > 0))
                    {
                        context.Add($"impl={runner.Name},ranks={ranks}", "ratio_to_openmpi",
                            context.Value($"impl={runner.Name},ranks={ranks}", "latency_us") / mpi, "ratio");
                    }
                }
            }

            WriteReport(context, runners, failures, repeats);
        }
        finally
        {
            foreach (var runner in runners)
            {
                runner.Dispose();
            }
        }

        return Task.CompletedTask;
    }

    private static void WriteReport(ExperimentContext context, IExchangeRunner[] runners, Dictionary<string, string> failures, int repeats)
    {
        context.Section("Our figures", $"Median of {repeats} repeats after a discarded warm-up round (implementations measured round-robin within each repeat, each for about the same wall time); " +
            "latency of one exchange as seen by the slowest rank; zero-size messages; 2 cores, so 4 and 8 ranks are oversubscribed. " +
            "Ratios are to Open MPI at the same rank count in the same run (below 1 = faster than Open MPI).");
        context.Table(
            ["implementation", .. RankCounts.Select(r => $"{r} ranks (µs)"), .. RankCounts.Select(r => $"{r} ranks ÷ Open MPI")],
            runners.Select(r => (IReadOnlyList<string>)[
                r.Name,
                .. RankCounts.Select(n => ExperimentContext.Format(context.Value($"impl={r.Name},ranks={n}", "latency_us"))),
                .. RankCounts.Select(n => ExperimentContext.Format(context.Value($"impl={r.Name},ranks={n}", "ratio_to_openmpi"))),
            ]));
        context.Paragraph(string.Join("\n", runners.Select(r => $"- `{r.Name}`: {r.Description}.")));
        if (failures.Count > 0)
        {
            context.Paragraph("Not measured: " + string.Join("; ", failures.Select(f => $"{f.Key} — {f.Value}")));
        }

        context.Section("The seed's figures (paper 000 Table III)", "Exchange latency on 2007 multicore PCs, one grain per core (µs).");
        context.Table(["runtime", "machine", "grains", "latency (µs)"],
            SeedTable.Select(s => (IReadOnlyList<string>)[s.Runtime, s.Machine, s.Grains.ToString(System.Globalization.CultureInfo.InvariantCulture), ExperimentContext.Format(s.Latency)]));

        var categories = RankCounts.Select(r => $"{r} ranks").ToArray();
        var chart = new Chart("Exchange latency (zero-size messages, 2 cores)", "ranks", "latency per exchange (µs)") { YScale = Scale.Log10 };
        for (var i = 0; i < runners.Length; i++)
        {
            var values = RankCounts.Select(n => context.Value($"impl={runners[i].Name},ranks={n}", "latency_us")).ToArray();
            var errors = RankCounts.Select(n => context.Value($"impl={runners[i].Name},ranks={n}", "latency_stddev_us")).ToArray();
            chart.AddBars(runners[i].Name, categories, values, Figures.Bars(Figures.Colour(i)), errors);
        }

        chart.AddBars("seed CCR (C#, 2007; 4 and 8 cores)", categories, [double.NaN, 16.3, 20.2], Figures.Bars(Color.FromHex("#9e9e9e")));
        Figures.Save(context, chart);
    }
}
