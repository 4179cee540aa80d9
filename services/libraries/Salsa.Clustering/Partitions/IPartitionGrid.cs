namespace Salsa.Clustering.Partitions;

/// <summary>Every point's nearest centre and its weight, in row order.</summary>
public sealed record PartitionAssignments(int[] Assignments, double[] Weights);

/// <summary>
/// A dataset as a fixed grid of partitions that compute annealing passes: grains spread over a
/// cluster's silos, or <see cref="LocalPartitions"/> in one process. Each pass's partition sums are
/// added in the order of the grid's fixed <see cref="ReductionTree"/>, so the run's result depends
/// on the grid, never on where the partitions are or who adds which.
/// </summary>
public interface IPartitionGrid
{
    int Count { get; }

    int Dimension { get; }

    /// <summary>The partitions' total weights, added in the reduction tree's order.</summary>
    double TotalWeight { get; }

    /// <summary>Every partition's sums for <paramref name="pass"/>, added in the reduction tree's order.</summary>
    double[] Reduce(PartitionPass pass, CancellationToken cancellationToken);

    /// <summary>Every point's nearest centre of <paramref name="pass"/>, partitions in order.</summary>
    PartitionAssignments Assign(PartitionPass pass, CancellationToken cancellationToken);
}
