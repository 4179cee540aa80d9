namespace Salsa.Clustering;

/// <summary>
/// Weighted points in R^d, row-major (<c>Values[i·Dimension + j]</c>). Validated on construction:
/// finite coordinates, non-negative finite weights, a positive total weight.
/// </summary>
public sealed class DenseVectors
{
    public DenseVectors(double[] values, int dimension, double[]? weights = null)
        : this(values, dimension, weights, wholeDataset: true)
    {
    }

    /// <summary>
    /// Some rows of a dataset as vectors of their own — a partition read from the store — checked as
    /// a dataset's are, except that their weights may all be zero, which a whole dataset's may not.
    /// </summary>
    public static DenseVectors Rows(double[] values, int dimension, double[] weights) => new(values, dimension, weights, wholeDataset: false);

    private DenseVectors(double[] values, int dimension, double[]? weights, bool wholeDataset)
    {
        ArgumentNullException.ThrowIfNull(values);
        if (dimension < 1)
        {
            throw new ClusteringInputException($"The dimension must be at least 1; it is {dimension}.", nameof(dimension));
        }

        if (values.Length == 0)
        {
            throw new ClusteringInputException("There are no points.", nameof(values));
        }

        if (values.Length % dimension != 0)
        {
            throw new ClusteringInputException($"{values.Length} values do not make whole points of dimension {dimension}.", nameof(values));
        }

        var count = values.Length / dimension;
        for (var i = 0; i < values.Length; i++)
        {
            if (!double.IsFinite(values[i]))
            {
                throw new ClusteringInputException($"Point {i / dimension}, coordinate {i % dimension} is {values[i]}; coordinates must be finite.", nameof(values));
            }
        }

        Weights = PointWeights.Validate(weights, count, positiveTotal: wholeDataset);
        Values = values;
        Dimension = dimension;
        Count = count;
        TotalWeight = PointWeights.Total(Weights);
    }

    private DenseVectors(double[] values, int dimension, double[] weights, double totalWeight)
    {
        (Values, Dimension, Weights, Count, TotalWeight) = (values, dimension, weights, weights.Length, totalWeight);
    }

    public int Count { get; }

    public int Dimension { get; }

    public double[] Values { get; }

    /// <summary>One weight per point (all 1 when none were given).</summary>
    public double[] Weights { get; }

    public double TotalWeight { get; }

    /// <summary>
    /// Points <c>[start, end)</c> as vectors of their own (copied): a partition of these points. Its
    /// weights may all be zero, which a dataset's may not.
    /// </summary>
    public DenseVectors Slice(int start, int end)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(start);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(end, Count);
        ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(end, start);
        var weights = Weights[start..end];
        return new DenseVectors(Values[(start * Dimension)..(end * Dimension)], Dimension, weights, PointWeights.Total(weights));
    }

    public ReadOnlySpan<double> Point(int index) => Values.AsSpan(index * Dimension, Dimension);

    /// <summary>Points from rows of equal length.</summary>
    public static DenseVectors FromRows(IReadOnlyList<double[]> rows, double[]? weights = null)
    {
        ArgumentNullException.ThrowIfNull(rows);
        if (rows.Count == 0)
        {
            throw new ClusteringInputException("There are no points.", nameof(rows));
        }

        var dimension = rows[0].Length;
        var values = new double[rows.Count * dimension];
        for (var i = 0; i < rows.Count; i++)
        {
            if (rows[i].Length != dimension)
            {
                throw new ClusteringInputException($"Point {i} has {rows[i].Length} coordinates; point 0 has {dimension}.", nameof(rows));
            }

            rows[i].CopyTo(values, i * dimension);
        }

        return new DenseVectors(values, dimension, weights);
    }
}

internal static class PointWeights
{
    public static double[] Validate(double[]? weights, int count, bool positiveTotal = true)
    {
        if (weights is null)
        {
            var ones = new double[count];
            Array.Fill(ones, 1.0);
            return ones;
        }

        if (weights.Length != count)
        {
            throw new ClusteringInputException($"{weights.Length} weights for {count} points.", nameof(weights));
        }

        for (var i = 0; i < weights.Length; i++)
        {
            if (!double.IsFinite(weights[i]) || weights[i] < 0)
            {
                throw new ClusteringInputException($"Weight {i} is {weights[i]}; weights must be finite and non-negative.", nameof(weights));
            }
        }

        if (positiveTotal && Total(weights) <= 0)
        {
            throw new ClusteringInputException("The points' total weight is zero.", nameof(weights));
        }

        return weights;
    }

    public static double Total(double[] weights)
    {
        var total = 0.0;
        foreach (var w in weights)
        {
            total += w;
        }

        return total;
    }
}
