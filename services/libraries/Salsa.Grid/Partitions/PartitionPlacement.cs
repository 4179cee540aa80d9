namespace Salsa.Grid.Partitions;

/// <summary>
/// Spreads a dataset's partitions evenly over the silos in contiguous runs: of <c>P</c> partitions
/// and <c>n</c> compatible silos (ordered by address), partition <c>i</c> goes to the
/// <c>⌊i·n/P⌋</c>-th — every silo holds its share rather than wherever the caller happens to be,
/// and a silo's partitions make few whole subtrees of the grid's <c>ReductionTree</c> (at most two
/// a level), which it adds up itself and forwards as one answer.
/// </summary>
[GenerateSerializer, Immutable]
public sealed class PartitionPlacement : PlacementStrategy
{
    public static PartitionPlacement Instance { get; } = new();
}
