namespace Salsa.Cluster.Tests;

/// <summary>A grain that says which silo it was activated on.</summary>
public interface IWhereGrain : IGrainWithIntegerKey
{
    Task<string> SiloAsync();
}

public sealed class WhereGrain : Grain, IWhereGrain
{
    public Task<string> SiloAsync() => Task.FromResult(RuntimeIdentity);
}
