using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Salsa.Bench.Harness;
using Salsa.Clustering;
using Salsa.Clustering.Annealing;
using Salsa.Clustering.Fingerprints;
using Salsa.Clustering.Mds;
using Salsa.DataFiles;

namespace Salsa.Bench.Experiments;

/// <summary>
/// The chemistry mashup step by step: the README's <c>chem-40k</c> run as a user starts it; Butina
/// and binary DA on 40k and on all 176,074 compounds with their peak memory; the MDS of the 1,000
/// largest Butina clusters' medoids beside scikit-learn's <c>MDS</c> on the same dissimilarities;
/// the similarity search warm, over 40k and 176k.
/// </summary>
public sealed class ChemWorkflowExperiment : IExperiment
{
    private const double ButinaCutoff = 0.6; // chem-40k's
    private const int MaxClusters = 12; // chem-40k's
    private const int SearchK = 10;

    public string Name => "chem-workflow";

    public string Description => "The chemistry mashup: the chem-40k run, Butina and binary DA on 40k and 176k compounds with peak memory, MDS of 1,000 medoids beside scikit-learn, warm similarity search.";

    public Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var subset = CompoundSet.ReadFile(CompoundSet.Subset40kPath);
        var all = context.Quick ? null : CompoundSet.ReadFile(CompoundSet.AllPath);
        var queries = Queries(subset, all, context.Quick ? 10 : 50);
        var sets = context.Quick
            ? new List<(string Label, BinaryVectors Points)> { ("chem-4k", Ecfp4(subset.Take(4_000))) }
            : [("chem-40k", Ecfp4(subset)), ("chem-176k", Ecfp4(all!))];

        // A first pass over a small set compiles the code (not timed).
        var small = Ecfp4(subset.Take(1_000));
        TaylorButina.Run(small, new ButinaOptions { Cutoff = ButinaCutoff }, cancellationToken: cancellationToken);
        DeterministicAnnealing.Run(small, new AnnealingOptions { MaxClusters = 4 }, cancellationToken: cancellationToken);

        var scaleRows = new List<IReadOnlyList<string>>();
        ButinaResult? firstButina = null;
        foreach (var (label, points) in sets)
        {
            var @case = string.Create(CultureInfo.InvariantCulture, $"data={label},n={points.Count}");
            var (butina, butinaSeconds, butinaPeak) = Measure(() => TaylorButina.Run(points, new ButinaOptions { Cutoff = ButinaCutoff }, cancellationToken: cancellationToken));
            firstButina ??= butina;
            var (annealing, daSeconds, daPeak) = Measure(() => DeterministicAnnealing.Run(points, new AnnealingOptions { MaxClusters = MaxClusters }, cancellationToken: cancellationToken));
            var (index, indexSeconds, _) = Measure(() => SimilarityIndex.Build(points, butina));
            var search = SearchTimes(index, queries);
            context.Add(@case, "butina_seconds", butinaSeconds, "s");
            context.Add(@case, "butina_peak_resident_mb", butinaPeak, "MB");
            context.Add(@case, "binary_da_seconds", daSeconds, "s");
            context.Add(@case, "binary_da_peak_resident_mb", daPeak, "MB");
            context.Add(@case, "binary_da_cost", annealing.WeightedCost, "");
            context.Add(@case, "search_index_seconds", indexSeconds, "s");
            context.Add(@case, "search_ms", Statistics.Median(search), "ms");
            context.Add(@case, "search_p95_ms", Statistics.Percentile(search, 95), "ms");
            scaleRows.Add([
                label, points.Count.ToString("N0", CultureInfo.InvariantCulture),
                F(butinaSeconds, "F1"), butina.Clusters.ToString("N0", CultureInfo.InvariantCulture), F(butinaPeak, "F0"),
                F(daSeconds, "F1"), annealing.Clusters.ToString(CultureInfo.InvariantCulture), F(daPeak, "F0"),
                F(indexSeconds, "F2"), F(Statistics.Median(search), "F2"), F(Statistics.Percentile(search, 95), "F2"),
            ]);
            context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"  {label}: Butina {butinaSeconds:F1} s ({butinaPeak:F0} MB), binary DA {daSeconds:F1} s ({daPeak:F0} MB), search {Statistics.Median(search):F2} ms warm"));
        }

        context.Section("Scale", string.Create(CultureInfo.InvariantCulture,
            $"Taylor–Butina (Tanimoto distance cut-off {ButinaCutoff}) and binary DA (Kmax {MaxClusters}) on ECFP4 fingerprints (1,024 bits), each run once on every core of this {Environment.ProcessorCount}-core machine after a run on 1,000 compounds that compiles the code. " +
            $"Peak memory is this process's peak resident set during the step (the kernel's high-water mark, reset before it; it includes the compound sets the benchmark holds). " +
            $"Search: exact top-{SearchK} Tanimoto over the Butina clusters' index, the median and 95th percentile of {queries.Count} queries after 5 that warm it — compounds of the full set that are not in the 40k subset; building the index is the cold cost of a dataset's first search."));
        context.Table(["data", "compounds", "Butina, s", "clusters", "peak MB", "binary DA, s", "clusters", "peak MB", "index, s", "search, ms", "p95, ms"], scaleRows);

        Embedding(context, sets[0].Points, firstButina!, cancellationToken);
        if (!context.Quick)
        {
            Workflow(context, cancellationToken);
        }

        return Task.CompletedTask;
    }

    /// <summary>The MDS step: the medoids of the largest clusters, weighted by size as chem-40k embeds them, and the same matrix unweighted beside scikit-learn.</summary>
    private static void Embedding(ExperimentContext context, BinaryVectors prints, ButinaResult butina, CancellationToken cancellationToken)
    {
        var count = Math.Min(context.Quick ? 200 : 1_000, butina.Clusters);
        var largest = Enumerable.Range(0, butina.Clusters).OrderByDescending(c => butina.ClusterSizes[c]).ThenBy(c => c).Take(count).ToArray();
        var words = new ulong[count * prints.Words];
        for (var i = 0; i < count; i++)
        {
            prints.Fingerprint(butina.Medoids[largest[i]]).CopyTo(words.AsSpan(i * prints.Words));
        }

        var medoids = new BinaryVectors(words, prints.Bits);
        var sizes = largest.Select(c => (double)butina.ClusterSizes[c]).ToArray();
        var options = new SmacofOptions { Dimensions = 2 };
        var times = new List<double>();
        SmacofResult weighted = null!;
        Smacof.Run(Dissimilarities.FromTanimoto(medoids), options, sizes, cancellationToken: cancellationToken); // compiles
        for (var r = 0; r < (context.Quick ? 1 : 3); r++)
        {
            var clock = Stopwatch.StartNew();
            weighted = Smacof.Run(Dissimilarities.FromTanimoto(medoids), options, sizes, cancellationToken: cancellationToken);
            times.Add(clock.Elapsed.TotalSeconds);
        }

        var clockUnweighted = Stopwatch.StartNew();
        var unweighted = Smacof.Run(Dissimilarities.FromTanimoto(medoids), options, cancellationToken: cancellationToken);
        var unweightedSeconds = clockUnweighted.Elapsed.TotalSeconds;

        var delta = new double[count * count];
        for (var i = 0; i < count; i++)
        {
            for (var j = 0; j < count; j++)
            {
                delta[i * count + j] = Tanimoto.Distance(medoids, i, j);
            }
        }

        var @case = string.Create(CultureInfo.InvariantCulture, $"medoids={count}");
        context.Add(@case, "mds_seconds", Statistics.Median(times), "s");
        context.Add(@case, "mds_unweighted_seconds", unweightedSeconds, "s");
        var ours = RawStress(delta, count, unweighted.Coordinates);
        context.Add(@case, "stress", ours, "");
        var sklearnText = "scikit-learn not run";
        if (Peers.MissingPython("python3-sklearn", "sklearn") is { } missing)
        {
            context.Paragraph("scikit-learn's MDS was not run: " + missing);
        }
        else
        {
            var matrix = Path.GetTempFileName();
            try
            {
                File.WriteAllBytes(matrix, System.Runtime.InteropServices.MemoryMarshal.AsBytes(delta.AsSpan()).ToArray());
                var answer = Peers.RunJson(Peers.DebianPython, [Path.Combine(Peers.Directory, "clustering_peers.py"), "mds", matrix, count.ToString(CultureInfo.InvariantCulture)], TimeSpan.FromMinutes(30));
                var coordinates = answer.GetProperty("coordinates").EnumerateArray().Select(e => e.GetDouble()).ToArray();
                var theirs = RawStress(delta, count, coordinates);
                var seconds = answer.GetProperty("seconds").GetDouble();
                context.Add(@case, "sklearn_stress", theirs, "");
                context.Add(@case, "sklearn_mds_seconds", seconds, "s");
                context.Add(@case, "stress_ratio_to_sklearn", ours / theirs, "×");
                context.Add(@case, "speed_ratio_to_sklearn", seconds / unweightedSeconds, "×");
                sklearnText = string.Create(CultureInfo.InvariantCulture,
                    $"scikit-learn {answer.GetProperty("version").GetString()} `MDS(metric=True, dissimilarity=\"precomputed\")` (n_init {answer.GetProperty("n_init").GetInt32()}, max_iter {answer.GetProperty("max_iter").GetInt32()}): {seconds:F2} s, stress {theirs:F2}; ours unweighted {unweightedSeconds:F2} s, stress {ours:F2} — **stress ratio {ours / theirs:F3}**, {seconds / unweightedSeconds:F1}× faster");
            }
            finally
            {
                File.Delete(matrix);
            }
        }

        context.Section("MDS of the medoids", string.Create(CultureInfo.InvariantCulture,
            $"SMACOF to 2-D of the medoids of the {count:N0} largest Butina clusters (Tanimoto distances), weighted by cluster size as chem-40k embeds them: **{Statistics.Median(times):F2} s** (median of {times.Count} after one that compiles; {weighted.Iterations} iterations). " +
            $"Stress compared unweighted on the same double-precision matrix, σ = Σ_(i<j) (d_ij − δ_ij)², computed here for both embeddings: {sklearnText}."));
        context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  MDS of {count} medoids: {Statistics.Median(times):F2} s; {sklearnText}"));
    }

    /// <summary>The README's chem-40k run, as a user starts it, three times: the run's own start to finish and each step's time.</summary>
    private static void Workflow(ExperimentContext context, CancellationToken cancellationToken)
    {
        var root = Peers.RepositoryRoot();
        var gateway = Path.Combine(root, "gateway", "Salsa.Gateway", "bin", "Release", "net10.0", "Salsa.Gateway.dll");
        if (!File.Exists(gateway))
        {
            context.Section("chem-40k", "The gateway is not built in Release (`dotnet build -c Release`); the run was not timed.");
            return;
        }

        var runs = new List<(double Seconds, JsonElement Steps)>();
        for (var r = 0; r < 3; r++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var output = Directory.CreateTempSubdirectory("chem-40k-");
            try
            {
                var start = new ProcessStartInfo("dotnet", [gateway, "run", "workflows/chem-40k.yaml", "--out", output.FullName])
                {
                    WorkingDirectory = root, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false,
                };
                using var process = Process.Start(start)!;
                var stdout = process.StandardOutput.ReadToEndAsync(cancellationToken);
                var stderr = process.StandardError.ReadToEndAsync(cancellationToken);
                if (!process.WaitForExit(TimeSpan.FromMinutes(10)))
                {
                    process.Kill(entireProcessTree: true);
                    throw new TimeoutException("chem-40k did not finish in 10 minutes.");
                }

                if (process.ExitCode != 0)
                {
                    throw new InvalidOperationException($"chem-40k failed (exit {process.ExitCode}): {stderr.Result}{stdout.Result}");
                }

                var result = JsonDocument.Parse(File.ReadAllText(Directory.GetFiles(output.FullName, "result.json", SearchOption.AllDirectories).Single())).RootElement;
                var seconds = (result.GetProperty("finished").GetDateTimeOffset() - result.GetProperty("started").GetDateTimeOffset()).TotalSeconds;
                runs.Add((seconds, result.GetProperty("steps").Clone()));
            }
            finally
            {
                output.Delete(recursive: true);
            }
        }

        var median = runs.OrderBy(r => r.Seconds).ElementAt(runs.Count / 2);
        context.Add("workflow=chem-40k", "workflow_seconds", median.Seconds, "s");
        var stepRows = median.Steps.EnumerateArray().Select(s => (IReadOnlyList<string>)[
            s.GetProperty("id").GetString()!, s.GetProperty("service").GetString()!, s.GetProperty("operation").GetString()!,
            F(s.GetProperty("durationMs").GetDouble() / 1000, "F2"),
        ]).ToList();
        foreach (var step in median.Steps.EnumerateArray())
        {
            context.Add($"workflow=chem-40k,step={step.GetProperty("id").GetString()}", "step_seconds", step.GetProperty("durationMs").GetDouble() / 1000, "s");
        }

        context.Section("chem-40k", string.Create(CultureInfo.InvariantCulture,
            $"`dotnet run -c Release --project gateway/Salsa.Gateway -- run workflows/chem-40k.yaml` (embedded default: every service in one process, SQLite), run three times as separate processes: " +
            $"the run's own start to finish (the run record's `started` → `finished`) **{median.Seconds:F1} s** (median; {string.Join(", ", runs.Select(r => r.Seconds.ToString("F1", CultureInfo.InvariantCulture)))} s). Steps of the median run (annealing and Butina run side by side, then MDS and the search beside the annealing):"));
        context.Table(["step", "service", "operation", "s"], stepRows);
        context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  chem-40k: {median.Seconds:F1} s"));
    }

    /// <summary>Times one step and the process's peak resident set while it ran (Linux: the high-water mark is reset first).</summary>
    private static (T Result, double Seconds, double PeakMegabytes) Measure<T>(Func<T> step)
    {
        try
        {
            File.WriteAllText("/proc/self/clear_refs", "5");
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            // Not Linux: the peak is the process's since it started.
        }

        var clock = Stopwatch.StartNew();
        var result = step();
        var seconds = clock.Elapsed.TotalSeconds;
        return (result, seconds, ProcessMemory.PeakResidentBytes() / 1e6);
    }

    private static List<double> SearchTimes(SimilarityIndex index, BinaryVectors queries)
    {
        for (var q = 0; q < Math.Min(5, queries.Count); q++)
        {
            index.Search(queries.Fingerprint(q), SearchK);
        }

        var times = new List<double>();
        for (var q = 0; q < queries.Count; q++)
        {
            var clock = Stopwatch.StartNew();
            index.Search(queries.Fingerprint(q), SearchK);
            times.Add(clock.Elapsed.TotalMilliseconds);
        }

        return times;
    }

    /// <summary>Query compounds that are not in the 40k subset: of the full set when it is loaded, otherwise the subset's last ones.</summary>
    private static BinaryVectors Queries(CompoundSet subset, CompoundSet? all, int count)
    {
        var type = FingerprintType.Ecfp4;
        if (all is null)
        {
            return new BinaryVectors(subset.Fingerprints[type].AsSpan((subset.Count - count) * type.Words).ToArray(), type.Bits);
        }

        var inSubset = subset.Ids.ToHashSet(StringComparer.Ordinal);
        var chosen = Enumerable.Range(0, all.Count).Where(i => !inSubset.Contains(all.Ids[i])).Take(count).ToArray();
        var picked = new ulong[chosen.Length * type.Words];
        for (var i = 0; i < chosen.Length; i++)
        {
            all.Fingerprint(type, chosen[i]).CopyTo(picked.AsSpan(i * type.Words));
        }

        return new BinaryVectors(picked, type.Bits);
    }

    private static BinaryVectors Ecfp4(CompoundSet set) => new(set.Fingerprints[FingerprintType.Ecfp4], FingerprintType.Ecfp4.Bits);

    private static double RawStress(double[] delta, int n, double[] coordinates)
    {
        var stress = 0.0;
        for (var i = 0; i < n; i++)
        {
            for (var j = i + 1; j < n; j++)
            {
                var (dx, dy) = (coordinates[2 * i] - coordinates[2 * j], coordinates[2 * i + 1] - coordinates[2 * j + 1]);
                var e = Math.Sqrt(dx * dx + dy * dy) - delta[i * n + j];
                stress += e * e;
            }
        }

        return stress;
    }

    private static string F(double value, string format) => value.ToString(format, CultureInfo.InvariantCulture);
}
