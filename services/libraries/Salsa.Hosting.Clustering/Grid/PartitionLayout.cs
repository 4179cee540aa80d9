using System.ComponentModel.DataAnnotations;

namespace Salsa.Hosting.Clustering.Grid;

/// <summary>
/// How a dataset is cut into partitions on the grid (<c>Cluster:PointsPerPartition</c>,
/// <c>Cluster:MaxPartitions</c>): by its size alone, never by the silos, so a job's result is the
/// same on any number of them. A dataset of one partition gives the bits of the service's own run.
/// </summary>
public sealed class PartitionLayout
{
    /// <summary>Rows per partition (the last one takes the rest); 32,768 by default.</summary>
    [Range(1, int.MaxValue)]
    public int PointsPerPartition { get; set; } = 32_768;

    /// <summary>At most this many partitions, however large the dataset; 64 by default.</summary>
    [Range(1, 4_096)]
    public int MaxPartitions { get; set; } = 64;

    public int PartitionsFor(int points) => Math.Clamp((points + PointsPerPartition - 1) / PointsPerPartition, 1, MaxPartitions);
}
