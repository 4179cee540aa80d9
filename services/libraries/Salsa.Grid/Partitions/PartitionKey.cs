using System.Globalization;
using Salsa.Clustering.Partitions;

namespace Salsa.Grid.Partitions;

/// <summary>
/// One partition of a dataset: partition <see cref="Index"/> of a fixed grid of <see cref="Count"/>,
/// chosen for the dataset, never for the cluster — so the rows each partition holds, and the order
/// partial results are folded in, are the same on one silo or many.
/// </summary>
public readonly record struct PartitionKey(Guid DatasetId, int Index, int Count)
{
    /// <summary>The rows [Start, End) of a dataset of <paramref name="points"/> points: as even as integers allow.</summary>
    public (int Start, int End) Rows(int points) => DensePartition.Rows(points, Index, Count);

    /// <summary>Which of <paramref name="silos"/> silos (ordered by address) placement puts this partition on: contiguous runs, ⌊Index·silos/Count⌋.</summary>
    public int SiloOf(int silos) => (int)((long)Index * silos / Count);

    /// <summary>The grain key, e.g. <c>1f0c…/3/8</c>.</summary>
    public string ToGrainKey() => string.Create(CultureInfo.InvariantCulture, $"{DatasetId:N}/{Index}/{Count}");

    public static PartitionKey Parse(string key)
    {
        ArgumentNullException.ThrowIfNull(key);
        var parts = key.Split('/');
        return parts.Length == 3 && Guid.TryParseExact(parts[0], "N", out var id)
            && int.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out var index)
            && int.TryParse(parts[2], NumberStyles.None, CultureInfo.InvariantCulture, out var count) && count > 0 && index < count
            ? new PartitionKey(id, index, count)
            : throw new FormatException($"'{key}' is not a partition key (dataset/index/count).");
    }

    /// <summary>Every partition of a grid, in the order their results are folded.</summary>
    public static IEnumerable<PartitionKey> Grid(Guid datasetId, int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(count);
        return Enumerable.Range(0, count).Select(i => new PartitionKey(datasetId, i, count));
    }
}
