using System.Diagnostics;
using Salsa.Bench.Experiments.Exchange;
using Salsa.Bench.Harness;

namespace Salsa.Bench.Experiments;

/// <summary>
/// Exchange latency beside a busy process: the same ring exchange as <see cref="ExchangeLatencyExperiment"/>
/// at 2, 4 and 8 ranks, measured on an idle machine and then with one CPU-bound process of another
/// program running (a shell loop), as on a shared server. Waiting strategies that yield the core hand
/// it to such a process for a whole scheduler slice.
/// </summary>
public sealed class ExchangeUnderLoadExperiment : IExperiment
{
    private static readonly int[] RankCounts = [2, 4, 8];

    public string Name => "exchange-under-load";

    public string Description => "Exchange latency at 2, 4, 8 ranks on an idle machine and beside one busy process — Salsa.Ccr vs .NET primitives vs Open MPI (C).";

    public Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var repeats = context.Quick ? 3 : 5;
        IExchangeRunner[] runners =
        [
            new SalsaThreadsExchange(), new SalsaThreadsExchange(ThreadPlacement.Pinned), new SalsaThreadsExchange(ThreadPlacement.SpmdRunDefault), new SalsaTasksExchange(),
            new BarrierExchange(), new ChannelsExchange(), new OpenMpiExchange(),
        ];
        var failures = new Dictionary<string, string>();
        try
        {
            foreach (var loaded in new[] { false, true })
            {
                using var busy = loaded ? BusyProcess.Start() : null;
                foreach (var ranks in RankCounts)
                {
                    Measure(context, runners, ranks, loaded ? "busy" : "idle", repeats, context.Quick ? 0.1 : 0.4, failures, cancellationToken);
                }
            }

            foreach (var runner in runners)
            {
                foreach (var ranks in RankCounts)
                {
                    var idle = context.Value($"impl={runner.Name},ranks={ranks},machine=idle", "latency_us");
                    var busy = context.Value($"impl={runner.Name},ranks={ranks},machine=busy", "latency_us");
                    if (!double.IsNaN(idle) && !double.IsNaN(busy))
                    {
                        context.Add($"impl={runner.Name},ranks={ranks}", "busy_over_idle", busy / idle, "ratio");
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

    private static void Measure(ExperimentContext context, IExchangeRunner[] runners, int ranks, string machine, int repeats, double target,
        Dictionary<string, string> failures, CancellationToken cancellationToken)
    {
        // A short pilot: beside the busy process a slow implementation still gets a few hundred exchanges.
        var samples = ExchangeSampling.Sample(runners, ranks, repeats, target, 300, failures, cancellationToken);
        foreach (var runner in runners.Where(r => samples[r.Name].Count > 0))
        {
            context.Add($"impl={runner.Name},ranks={ranks},machine={machine}", "latency_us", Statistics.Median(samples[runner.Name]), "us");
        }
    }

    private static void WriteReport(ExperimentContext context, IExchangeRunner[] runners, Dictionary<string, string> failures, int repeats)
    {
        context.Section("Our figures", $"Median of {repeats} repeats after a pilot and a discarded warm-up round; latency of one exchange as seen by the slowest rank; zero-size " +
            "messages; 2 cores, so 4 and 8 ranks are oversubscribed. *Busy*: one CPU-bound process of another program (`sh -c 'while :; do :; done'`) " +
            "runs throughout; *idle*: nothing else. The ratio is busy ÷ idle for the same implementation and rank count in the same run.");
        context.Table(
            ["implementation", .. RankCounts.SelectMany(r => new[] { $"{r} ranks idle (µs)", $"{r} ranks busy (µs)", $"{r} ranks busy ÷ idle" })],
            runners.Select(r => (IReadOnlyList<string>)[
                r.Name,
                .. RankCounts.SelectMany(n => new[]
                {
                    ExperimentContext.Format(context.Value($"impl={r.Name},ranks={n},machine=idle", "latency_us")),
                    ExperimentContext.Format(context.Value($"impl={r.Name},ranks={n},machine=busy", "latency_us")),
                    ExperimentContext.Format(context.Value($"impl={r.Name},ranks={n}", "busy_over_idle")),
                }),
            ]));
        context.Paragraph(string.Join("\n", runners.Select(r => $"- `{r.Name}`: {r.Description}.")));
        if (failures.Count > 0)
        {
            context.Paragraph("Not measured: " + string.Join("; ", failures.Select(f => $"{f.Key} — {f.Value}")));
        }
    }

    /// <summary>A CPU-bound process of another program, stopped with the experiment.</summary>
    private sealed class BusyProcess : IDisposable
    {
        private readonly Process _process;

        private BusyProcess(Process process) => _process = process;

        public static BusyProcess Start()
        {
            var process = Process.Start(new ProcessStartInfo("/bin/sh", ["-c", "while :; do :; done"]) { UseShellExecute = false })
                ?? throw new InvalidOperationException("The busy process did not start.");
            return new BusyProcess(process);
        }

        public void Dispose()
        {
            _process.Kill(entireProcessTree: true);
            _process.WaitForExit();
            _process.Dispose();
        }
    }
}
