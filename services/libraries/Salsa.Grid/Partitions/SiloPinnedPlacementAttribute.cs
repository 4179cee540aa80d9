using Orleans.Placement;

namespace Salsa.Grid.Partitions;

[AttributeUsage(AttributeTargets.Class, AllowMultiple = false)]
public sealed class SiloPinnedPlacementAttribute() : PlacementAttribute(SiloPinnedPlacement.Instance);
