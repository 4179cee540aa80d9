namespace Salsa.Grid.Tests;

/// <summary>A grain that says which silo it was activated on.</summary>
public interface IWhereGrain : IGrainWithIntegerKey
{
    Task<string> SiloAsync();
}

/// <remarks>
/// Placed at random: Orleans' default placement (resource-optimised) prefers the calling silo, so
/// grains asked for from one silo may all stay there — not what a test of "the cluster is one" asks.
/// </remarks>
[Orleans.Placement.RandomPlacement]
public sealed class WhereGrain : Grain, IWhereGrain
{
    public Task<string> SiloAsync() => Task.FromResult(RuntimeIdentity);
}
