using Orleans.Placement;

namespace Salsa.Grid.Partitions;

[AttributeUsage(AttributeTargets.Class, AllowMultiple = false)]
public sealed class PartitionPlacementAttribute() : PlacementAttribute(PartitionPlacement.Instance);
