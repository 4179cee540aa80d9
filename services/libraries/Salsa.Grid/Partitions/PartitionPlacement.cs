namespace Salsa.Grid.Partitions;

/// <summary>
/// Spreads a dataset's partitions evenly over the silos: partition <c>i</c> goes to the
/// <c>i mod n</c>-th of the compatible silos (ordered by address), so every silo holds its share
/// rather than wherever the caller happens to be.
/// </summary>
[GenerateSerializer, Immutable]
public sealed class PartitionPlacement : PlacementStrategy
{
    public static PartitionPlacement Instance { get; } = new();
}
