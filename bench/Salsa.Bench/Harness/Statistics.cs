namespace Salsa.Bench.Harness;

/// <summary>Summary statistics of repeated measurements.</summary>
public static class Statistics
{
    public static double Median(IReadOnlyList<double> values) => Percentile(values, 50);

    /// <summary>Percentile by linear interpolation between closest ranks.</summary>
    public static double Percentile(IReadOnlyList<double> values, double percentile)
    {
        if (values.Count == 0)
        {
            return double.NaN;
        }

        var sorted = values.Order().ToArray();
        var rank = percentile / 100 * (sorted.Length - 1);
        var lower = (int)Math.Floor(rank);
        var upper = Math.Min(lower + 1, sorted.Length - 1);
        return sorted[lower] + (rank - lower) * (sorted[upper] - sorted[lower]);
    }

    public static double Mean(IReadOnlyList<double> values) => values.Count == 0 ? double.NaN : values.Average();

    /// <summary>Sample standard deviation.</summary>
    public static double StandardDeviation(IReadOnlyList<double> values)
    {
        if (values.Count < 2)
        {
            return 0;
        }

        var mean = values.Average();
        return Math.Sqrt(values.Sum(v => (v - mean) * (v - mean)) / (values.Count - 1));
    }
}
