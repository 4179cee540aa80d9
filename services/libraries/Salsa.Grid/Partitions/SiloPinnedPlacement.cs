namespace Salsa.Grid.Partitions;

/// <summary>Places a grain on the silo its key names (a <see cref="SiloPassGrain"/>); a silo that is gone is unavailable.</summary>
[GenerateSerializer, Immutable]
public sealed class SiloPinnedPlacement : PlacementStrategy
{
    public static SiloPinnedPlacement Instance { get; } = new();
}
