using System.Globalization;
using Salsa.Bench.Experiments.Stages;
using Salsa.Bench.Harness;
using Salsa.Graphics;
using Salsa.Graphics.Charts;

namespace Salsa.Bench.Experiments;

/// <summary>
/// Paper 001 Tables 1–2: a fixed amount of computation per parallel computation, split into stages
/// separated by messages in four patterns, with dispatcher threads "match" (one per computation) or
/// "default" (one per core). Overhead per stage = (time in S stages − time in one stage) / S.
/// </summary>
public sealed class CcrStagesExperiment : IExperiment
{
    private static readonly int[] Computations = [1, 2, 3, 4, 8];

    // Paper 001 Table 2 (stage overhead, µs): [pattern][match/default][computations 1,2,3,4,8]; NaN = N/A or "Error".
    private static readonly Dictionary<string, double[][]> Seed = new()
    {
        ["AMD 4-core"] =
        [
            [0.77, 2.4, 3.6, 5.0, 8.9], [3.6, 4.7, 4.4, 4.5, 8.9],
            [double.NaN, 3.3, 3.4, 4.7, 11.0], [double.NaN, 5.1, 4.2, 4.5, 8.6],
            [double.NaN, 4.8, 7.7, 9.5, 26.0], [double.NaN, 8.3, 9.0, 9.7, 24.0],
            [double.NaN, 11.0, 15.8, 18.3, double.NaN], [double.NaN, 16.8, 18.2, 18.6, double.NaN],
        ],
        ["Intel 8-core"] =
        [
            [1.33, 4.2, 4.3, 4.7, 6.5], [6.3, 8.4, 9.8, 9.5, 6.5],
            [double.NaN, 4.3, 4.5, 5.1, 7.2], [double.NaN, 8.3, 10.2, 10.0, 7.2],
            [double.NaN, 7.5, 6.8, 8.4, 22.8], [double.NaN, 20.3, 30.4, 27.3, 23.0],
            [double.NaN, 26.6, 23.6, 21.4, 33.1], [double.NaN, 31.3, 38.7, 46.0, 33.5],
        ],
    };

    public string Name => "ccr-stages";

    public string Description => "Paper 001 Tables 1–2: Pipeline, Shift, Two Shifts, Exchange with 1–8 computations, dispatcher threads match vs default; overhead per stage.";

    public Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var stageMicroseconds = 10.0;
        var units = Work.UnitsFor(stageMicroseconds);
        var stages = context.Quick ? 4_000 : 50_000;
        var repeats = context.Quick ? 1 : 5;
        IStagesRunner[] runners = [new CcrHandlersRunner(), new SpmdStagesRunner()];
        context.Paragraph(string.Create(CultureInfo.InvariantCulture,
            $"Each computation does {stages:N0} stages of {units} work units ({units * Work.MicrosecondsPerUnit:F1} µs measured on its own); " +
            $"the single-stage baseline does the same {stages * units:N0} units in one handler per computation, with a thread per computation (so the OS balances it). Median of {repeats}."));

        foreach (var pattern in Enum.GetValues<StagePattern>())
        {
            foreach (var n in Computations.Where(n => n > 1 || pattern == StagePattern.Pipeline))
            {
                foreach (var match in new[] { true, false })
                {
                    foreach (var runner in runners)
                    {
                        cancellationToken.ThrowIfCancellationRequested();
                        runner.Run(pattern, n, match, Math.Max(stages / 20, 100), units); // warm-up
                        var staged = new List<double>();
                        var single = new List<double>();
                        var empty = new List<double>();
                        for (var r = 0; r < repeats; r++)
                        {
                            // The unstaged baseline always has a thread per computation, so the OS
                            // balances it: with fewer threads than computations, whole-run handlers
                            // would leave a core idle at the end and make staging look free.
                            single.Add(runner.Run(pattern, n, match: true, 1, units * stages));
                            staged.Add(runner.Run(pattern, n, match, stages, units));
                            empty.Add(runner.Run(pattern, n, match, stages, 0));
                        }

                        var @case = $"impl={runner.Name},pattern={Key(pattern)},computations={n},threads={(match ? "match" : "default")}";
                        var t = Statistics.Median(staged);
                        var t1 = Statistics.Median(single);
                        context.Add(@case, "run_time_s", t, "s");
                        context.Add(@case, "single_stage_time_s", t1, "s");
                        context.Add(@case, "stage_overhead_us", (t - t1) / stages * 1e6, "us");
                        context.Add(@case, "empty_stage_us", Statistics.Median(empty) / stages * 1e6, "us");
                    }
                }
            }
        }

        Report(context, runners);
        return Task.CompletedTask;
    }

    private static string Key(StagePattern pattern) => pattern switch
    {
        StagePattern.Pipeline => "pipeline",
        StagePattern.Shift => "shift",
        StagePattern.TwoShifts => "two-shifts",
        _ => "exchange",
    };

    private static void Report(ExperimentContext context, IStagesRunner[] runners)
    {
        var patterns = Enum.GetValues<StagePattern>();
        context.Section("Stage overhead (µs), ours beside the seed's",
            "Rows: pattern and dispatcher threads. Ours on this machine (2 cores: 3, 4 and 8 computations are oversubscribed); " +
            "the seed's on a 4-core AMD and an 8-core Intel PC (paper 001 Table 2). – = not applicable or the seed's run failed (\"Error\").");
        var header = new List<string> { "pattern", "threads", "implementation" };
        header.AddRange(Computations.Select(n => $"{n}"));
        var rows = new List<IReadOnlyList<string>>();
        for (var p = 0; p < patterns.Length; p++)
        {
            foreach (var match in new[] { true, false })
            {
                var threads = match ? "match" : "default";
                foreach (var runner in runners)
                {
                    rows.Add([Key(patterns[p]), threads, runner.Name, .. Computations.Select(n =>
                        ExperimentContext.Format(context.Value($"impl={runner.Name},pattern={Key(patterns[p])},computations={n},threads={threads}", "stage_overhead_us")))]);
                }

                foreach (var (machine, table) in Seed)
                {
                    rows.Add([Key(patterns[p]), threads, $"seed CCR, {machine}", .. table[p * 2 + (match ? 0 : 1)].Select(v => ExperimentContext.Format(v))]);
                }
            }
        }

        context.Table(header, rows);

        context.Section("Cost of a stage with no computation (µs)",
            "The same runs with zero work units per stage: run time / stages. Not subject to the noise of subtracting two long runs, " +
            "so this is the figure for the runtime's own cost per stage.");
        var emptyRows = new List<IReadOnlyList<string>>();
        foreach (var pattern in patterns)
        {
            foreach (var match in new[] { true, false })
            {
                foreach (var runner in runners)
                {
                    var threads = match ? "match" : "default";
                    emptyRows.Add([Key(pattern), threads, runner.Name, .. Computations.Select(n =>
                        ExperimentContext.Format(context.Value($"impl={runner.Name},pattern={Key(pattern)},computations={n},threads={threads}", "empty_stage_us")))]);
                }
            }
        }

        context.Table(header, emptyRows);
        context.Paragraph(string.Join("\n", runners.Select(r => $"- `{r.Name}`: {r.Description}.")));

        var panels = new List<Chart>();
        var palette = Palette.Categorical;
        for (var p = 0; p < patterns.Length; p++)
        {
            var chart = new Chart(Key(patterns[p]), "parallel computations", "µs per stage: ours without work, the seed's overhead") { YScale = Scale.Log10 };
            var xs = Computations.Where(n => n > 1 || patterns[p] == StagePattern.Pipeline).Select(n => (double)n).ToArray();
            var colour = 0;
            foreach (var runner in runners)
            {
                foreach (var match in new[] { true, false })
                {
                    var threads = match ? "match" : "default";
                    var ys = xs.Select(n => context.Value($"impl={runner.Name},pattern={Key(patterns[p])},computations={n},threads={threads}", "empty_stage_us")).ToArray();
                    chart.AddLine($"{runner.Name}, {threads}", xs, ys, Figures.Ours(palette[colour++ % palette.Count], match ? MarkerShape.Circle : MarkerShape.Square));
                }
            }

            foreach (var match in new[] { true, false })
            {
                var seed = Seed["AMD 4-core"][p * 2 + (match ? 0 : 1)];
                var ys = xs.Select(n => seed[Array.IndexOf(Computations, (int)n)]).ToArray();
                chart.AddLine($"seed CCR AMD, {(match ? "match" : "default")}", xs, ys, Figures.Seed(palette[colour++ % palette.Count]));
            }

            panels.Add(chart);
        }

        Figures.SavePanels(context, panels, columns: 2);
    }
}
