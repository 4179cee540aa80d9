namespace Salsa.Cluster.Partitions;

/// <summary>
/// What a partition contributes to one Lloyd (k-means) step: each of its points assigned to the
/// nearest centre, and per cluster the weighted coordinate sums, the weights, the counts, and the
/// weighted squared distances in all. Computed in row order and folded in partition order, so the
/// result is the same bits however the partitions are spread over silos.
/// </summary>
[GenerateSerializer]
public sealed record AssignmentSums(
    [property: Id(0)] int Clusters,
    [property: Id(1)] int Dimension,
    [property: Id(2)] double[] Sums,
    [property: Id(3)] double[] Weights,
    [property: Id(4)] long[] Counts,
    [property: Id(5)] double Cost)
{
    /// <summary>The sums of points <paramref name="values"/> (row-major, <paramref name="dimension"/> per point) for <paramref name="centres"/>.</summary>
    public static AssignmentSums Compute(ReadOnlySpan<double> values, ReadOnlySpan<double> weights, int dimension, ReadOnlySpan<double> centres)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(dimension);
        if (centres.Length == 0 || centres.Length % dimension != 0 || values.Length != weights.Length * dimension)
        {
            throw new ArgumentException($"{centres.Length} centre coordinates or {values.Length} values do not fit dimension {dimension} and {weights.Length} weights.");
        }

        var clusters = centres.Length / dimension;
        var (sums, clusterWeights, counts) = (new double[clusters * dimension], new double[clusters], new long[clusters]);
        var cost = 0.0;
        for (var p = 0; p < weights.Length; p++)
        {
            var point = values.Slice(p * dimension, dimension);
            var (best, bestDistance) = (0, double.PositiveInfinity);
            for (var c = 0; c < clusters; c++)
            {
                var distance = 0.0;
                for (var j = 0; j < dimension; j++)
                {
                    var delta = point[j] - centres[(c * dimension) + j];
                    distance += delta * delta;
                }

                if (distance < bestDistance)
                {
                    (best, bestDistance) = (c, distance);
                }
            }

            var w = weights[p];
            for (var j = 0; j < dimension; j++)
            {
                sums[(best * dimension) + j] += w * point[j];
            }

            clusterWeights[best] += w;
            counts[best]++;
            cost += w * bestDistance;
        }

        return new(clusters, dimension, sums, clusterWeights, counts, cost);
    }

    /// <summary>The sums of several partitions, added in the order given (the partition order).</summary>
    public static AssignmentSums Fold(IReadOnlyList<AssignmentSums> parts)
    {
        ArgumentNullException.ThrowIfNull(parts);
        ArgumentOutOfRangeException.ThrowIfZero(parts.Count);
        var (clusters, dimension) = (parts[0].Clusters, parts[0].Dimension);
        var (sums, weights, counts) = (new double[clusters * dimension], new double[clusters], new long[clusters]);
        var cost = 0.0;
        foreach (var part in parts)
        {
            if (part.Clusters != clusters || part.Dimension != dimension)
            {
                throw new ArgumentException("The partitions' sums are of different shapes.", nameof(parts));
            }

            for (var i = 0; i < sums.Length; i++)
            {
                sums[i] += part.Sums[i];
            }

            for (var c = 0; c < clusters; c++)
            {
                weights[c] += part.Weights[c];
                counts[c] += part.Counts[c];
            }

            cost += part.Cost;
        }

        return new(clusters, dimension, sums, weights, counts, cost);
    }
}
