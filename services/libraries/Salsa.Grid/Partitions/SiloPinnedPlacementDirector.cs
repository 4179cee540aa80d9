using Orleans.Runtime.Placement;

namespace Salsa.Grid.Partitions;

public sealed class SiloPinnedPlacementDirector : IPlacementDirector
{
    public Task<SiloAddress> OnAddActivation(PlacementStrategy strategy, PlacementTarget target, IPlacementContext context)
    {
        ArgumentNullException.ThrowIfNull(context);
        var key = target.GrainIdentity.Key.ToString();
        return Task.FromResult(context.GetCompatibleSilos(target).FirstOrDefault(s => string.Equals(s.ToString(), key, StringComparison.Ordinal))
            ?? throw new SiloUnavailableException($"Silo {key} is not in the cluster."));
    }
}
