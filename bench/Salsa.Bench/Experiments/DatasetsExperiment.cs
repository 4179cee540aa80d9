using Salsa.Bench.Harness;
using Salsa.DataFiles;

namespace Salsa.Bench.Experiments;

/// <summary>
/// Reads every shipped data set, checks it against the figures its README publishes, and times the
/// parse (the lower bound for any import into a store).
/// </summary>
public sealed class DatasetsExperiment : IExperiment
{
    public string Name => "datasets";

    public string Description => "Read and check the census and compound data sets; parse throughput.";

    public Task RunAsync(ExperimentContext context, CancellationToken cancellationToken)
    {
        var rows = new List<IReadOnlyList<string>>();
        var repeats = context.Quick ? 1 : 3;

        foreach (var (label, path, expectedRows, expectedPopulation) in new[]
        {
            ("census-indiana", CensusBlockGroups.IndianaPath, 5_290, 6_785_528L),
            ("census-us", CensusBlockGroups.NationalPath, 242_335, 334_735_155L),
        })
        {
            List<CensusBlockGroup> points = [];
            var seconds = ExperimentContext.Repeat(0, repeats, () => points = CensusBlockGroups.ReadFile(path));
            var population = points.Sum(p => (long)p.Population);
            Check(label, points.Count == expectedRows && population == expectedPopulation,
                $"{points.Count} rows, population {population}; README says {expectedRows} and {expectedPopulation}");
            var median = Statistics.Median(seconds);
            context.Add($"data={label}", "rows", points.Count, "rows");
            context.Add($"data={label}", "read_seconds", median, "s");
            context.Add($"data={label}", "read_rate", points.Count / median, "rows/s");
            rows.Add([label, points.Count.ToString("N0", System.Globalization.CultureInfo.InvariantCulture), $"population {population:N0}", ExperimentContext.Format(median * 1000) + " ms"]);
        }

        foreach (var (label, path, expectedRows, meanEcfp) in new[]
        {
            ("chem-40k", CompoundSet.Subset40kPath, 40_000, 42.52),
            ("chem-all", CompoundSet.AllPath, 176_074, 42.50),
        })
        {
            CompoundSet set = null!;
            var seconds = ExperimentContext.Repeat(0, repeats, () => set = CompoundSet.ReadFile(path));
            var ecfp = set.Fingerprints[FingerprintType.Ecfp4];
            var mean = ecfp.Sum(w => (long)System.Numerics.BitOperations.PopCount(w)) / (double)set.Count;
            Check(label, set.Count == expectedRows && Math.Abs(mean - meanEcfp) < 0.005,
                $"{set.Count} compounds, mean ECFP4 bits {mean:F2}; README says {expectedRows} and {meanEcfp}");
            var median = Statistics.Median(seconds);
            context.Add($"data={label}", "rows", set.Count, "rows");
            context.Add($"data={label}", "read_seconds", median, "s");
            context.Add($"data={label}", "read_rate", set.Count / median, "rows/s");
            rows.Add([label, set.Count.ToString("N0", System.Globalization.CultureInfo.InvariantCulture), $"mean ECFP4 bits {mean:F2}", ExperimentContext.Format(median * 1000) + " ms"]);
        }

        context.Section("Data sets", "Every figure below is checked against `data/README.md`; a mismatch stops the run.");
        context.Table(["data set", "rows", "check", "parse time (median)"], rows);
        return Task.CompletedTask;
    }

    private static void Check(string label, bool ok, string detail)
    {
        if (!ok)
        {
            throw new InvalidDataException($"{label}: {detail}.");
        }
    }
}
