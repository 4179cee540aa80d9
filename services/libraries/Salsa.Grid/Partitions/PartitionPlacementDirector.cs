using Orleans.Runtime.Placement;

namespace Salsa.Grid.Partitions;

public sealed class PartitionPlacementDirector : IPlacementDirector
{
    public Task<SiloAddress> OnAddActivation(PlacementStrategy strategy, PlacementTarget target, IPlacementContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var silos = context.GetCompatibleSilos(target).OrderBy(s => s.ToString(), StringComparer.Ordinal).ToArray();
        if (IPlacementDirector.GetPlacementHint(target.RequestContextData, silos) is { } hint)
        {
            return Task.FromResult(hint); // a partition moved on purpose (GrainPartitions.Elastic)
        }

        var key = PartitionKey.Parse(target.GrainIdentity.Key.ToString()!);
        return Task.FromResult(silos[key.SiloOf(silos.Length)]);
    }
}
