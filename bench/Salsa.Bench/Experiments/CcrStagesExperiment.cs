using System.Globalization;
using Salsa.Bench.Experiments.Stages;
using Salsa.Bench.Harness;
using Salsa.Ccr;
using Salsa.Rendering.Charts;
using ScottPlot;

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

    /// <summary>The targets and the seed's default-vs-match gap, read off this run's own figures.</summary>
    private static void Findings(ExperimentContext context, IStagesRunner[] runners)
    {
        var cores = Environment.ProcessorCount;
        double Empty(string impl, StagePattern pattern, int n, bool match) =>
            context.Value($"impl={impl},pattern={Key(pattern)},computations={n},threads={(match ? "match" : "default")}", "empty_stage_us");
        string Us(double v) => ExperimentContext.Format(v);
        string Between(double[] values) => values.Min() == values.Max() ? Us(values[0]) : $"{Us(values.Min())} to {Us(values.Max())}";
        var patterns = Enum.GetValues<StagePattern>();
        var handlers = runners[0].Name;
        var spmd = runners[1].Name;
        var within = Computations.Where(n => n <= cores).ToArray();
        var beyond = Computations.Where(n => n > cores).ToArray();

        // Pipeline target: the runtime's own cost per stage at "match".
        var spmdPipeline = Computations.Select(n => Empty(spmd, StagePattern.Pipeline, n, match: true)).ToArray();
        var handlerPipeline = within.Select(n => Empty(handlers, StagePattern.Pipeline, n, match: true)).ToArray();

        // The seed's gap, where it was measured: fewer computations than cores ("default" has idle threads).
        // With as many computations as cores both settings are the same threads: their spread is noise.
        var fewer = patterns.SelectMany(p => Computations.Where(n => n < cores && (n > 1 || p == StagePattern.Pipeline)).Select(n => (Pattern: p, N: n))).ToArray();
        var gaps = fewer.Select(c => Empty(handlers, c.Pattern, c.N, match: false) / Empty(handlers, c.Pattern, c.N, match: true)).Where(double.IsFinite).ToArray();
        var extra = fewer.Select(c => Empty(handlers, c.Pattern, c.N, match: false) - Empty(handlers, c.Pattern, c.N, match: true)).Where(double.IsFinite).ToArray();
        var same = patterns.Select(p => Empty(handlers, p, cores, match: false) / Empty(handlers, p, cores, match: true)).Where(double.IsFinite).ToArray();
        var seedExtra = Seed.Values.Select(t => t[1][0] - t[0][0]).ToArray(); // pipeline, 1 computation: default − match
        var oversubscribed = patterns.SelectMany(p => beyond.Select(n => Empty(handlers, p, n, match: true) / Empty(handlers, p, n, match: false))).Where(double.IsFinite).ToArray();
        var tasks = patterns.Select(p => Empty(spmd, p, Computations[^1], match: false)).ToArray();

        var here = gaps.Length == 0 ? "this machine has no case with fewer computations than cores. " : string.Create(CultureInfo.InvariantCulture,
            $"here, with fewer computations than cores, \"default\" − \"match\" is {Between(extra)} µs a stage (\"default\" ÷ \"match\" {Between(gaps)}) for the handler runtime. ");
        context.Section("Findings", string.Create(CultureInfo.InvariantCulture,
            $"- **Pipeline stage cost at \"match\"**: the SPMD pipeline (ranks passing to the next by Send/Receive) costs {Us(spmdPipeline.Min())}–{Us(spmdPipeline.Max())} µs a stage " +
            $"at 1–{Computations[^1]} computations, under the 0.5 µs target everywhere; a stage as a CCR handler (post to a port, a persistent receive runs the next handler) " +
            $"costs {Us(handlerPipeline.Min())}–{Us(handlerPipeline.Max())} µs while computations ≤ cores, more once threads outnumber cores (table above).\n" +
            $"- **The seed's \"default\" vs \"match\" gap** (paper 001 Table 2, one pipeline computation: \"default\", a thread per core, costs {Us(seedExtra.Min())}–{Us(seedExtra.Max())} µs a stage more than \"match\"): " +
            $"{here}" +
            $"The seed's CCR put idle threads to sleep at once, so every post woke one through a kernel event (microseconds); Salsa.Ccr's idle threads poll their queues for " +
            $"{new DispatcherOptions().IdleSpin.TotalMicroseconds:F0} µs before sleeping, so no post waits for a wake-up. What can remain is the hand-off: a spinning idle thread may take the " +
            $"posted stage, and the stage's message and state then follow it to the other core. With as many computations as cores the two settings are the same {cores} threads; " +
            $"their ratio there, {Between(same)}, is this machine's run-to-run spread.\n" +
            $"- **Beyond the cores** ({string.Join(", ", beyond)} computations on {cores}): \"match\" means more threads than cores, and a stage waits for its thread's next time slice; " +
            $"\"match\" ÷ \"default\" is {Us(oversubscribed.Min())}–{Us(oversubscribed.Max())} for the handlers. " +
            $"SPMD task execution (ranks suspend instead of blocking, one thread per core) keeps {Computations[^1]} computations at {Us(tasks.Min())}–{Us(tasks.Max())} µs a stage across the four patterns."));
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
        Findings(context, runners);

        var panels = new List<Chart>();
        for (var p = 0; p < patterns.Length; p++)
        {
            var chart = new Chart(Key(patterns[p]), "parallel computations", "µs per stage") { YScale = Scale.Log10 };
            var xs = Computations.Where(n => n > 1 || patterns[p] == StagePattern.Pipeline).Select(n => (double)n).ToArray();
            var colour = 0;
            foreach (var runner in runners)
            {
                foreach (var match in new[] { true, false })
                {
                    var threads = match ? "match" : "default";
                    var ys = xs.Select(n => context.Value($"impl={runner.Name},pattern={Key(patterns[p])},computations={n},threads={threads}", "empty_stage_us")).ToArray();
                    chart.AddLine($"{runner.Name}, {threads}", xs, ys, Figures.Ours(Figures.Colour(colour++), match ? MarkerShape.FilledCircle : MarkerShape.FilledSquare));
                }
            }

            foreach (var match in new[] { true, false })
            {
                var seed = Seed["AMD 4-core"][p * 2 + (match ? 0 : 1)];
                var ys = xs.Select(n => seed[Array.IndexOf(Computations, (int)n)]).ToArray();
                chart.AddLine($"seed CCR AMD, {(match ? "match" : "default")}", xs, ys, Figures.Seed(Figures.Colour(colour++)));
            }

            panels.Add(chart);
        }

        context.Paragraph("Solid lines: our time per stage without work; dashed, hollow markers: the seed's overhead per stage (CCR, AMD 4-core), both in µs.");
        Figures.SavePanels(context, panels, columns: 2, panelWidth: 760);
    }
}
