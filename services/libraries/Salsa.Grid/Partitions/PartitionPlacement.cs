using Orleans.Placement;
using Orleans.Runtime.Placement;

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

[AttributeUsage(AttributeTargets.Class, AllowMultiple = false)]
public sealed class PartitionPlacementAttribute() : PlacementAttribute(PartitionPlacement.Instance);

public sealed class PartitionPlacementDirector : IPlacementDirector
{
    public Task<SiloAddress> OnAddActivation(PlacementStrategy strategy, PlacementTarget target, IPlacementContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var silos = context.GetCompatibleSilos(target).OrderBy(s => s.ToString(), StringComparer.Ordinal).ToArray();
        var key = PartitionKey.Parse(target.GrainIdentity.Key.ToString()!);
        return Task.FromResult(silos[key.Index % silos.Length]);
    }
}
