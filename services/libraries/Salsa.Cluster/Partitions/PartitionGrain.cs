using Salsa.Store;

namespace Salsa.Cluster.Partitions;

/// <summary>
/// A partition of a dense dataset, kept in memory on whichever silo Orleans placed it; it loads its
/// rows from the store when activated (again on a survivor, if its silo is lost).
/// </summary>
public interface IPartitionGrain : IGrainWithStringKey
{
    /// <summary>The rows this partition holds.</summary>
    Task<int> PointsAsync();

    /// <summary>Its contribution to one Lloyd step for <paramref name="centres"/> (row-major, the dataset's dimension).</summary>
    Task<AssignmentSums> AssignAsync(double[] centres);

    /// <summary>The silo this partition is on (for job views and tests).</summary>
    Task<string> SiloAsync();
}

[PartitionPlacement]
public sealed class PartitionGrain(IDataStore store) : Grain, IPartitionGrain
{
    private double[] _values = [];
    private double[] _weights = [];
    private int _dimension;

    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        var key = PartitionKey.Parse(this.GetPrimaryKeyString());
        var info = await store.GetDatasetAsync(key.DatasetId, cancellationToken) ?? throw new InvalidOperationException($"No dataset {key.DatasetId} in the store.");
        var content = await store.ReadDatasetAsync(key.DatasetId, cancellationToken) ?? throw new InvalidOperationException($"No content for dataset {key.DatasetId}.");
        if (info.Kind != DatasetKind.Dense || content.Values is null)
        {
            throw new InvalidOperationException($"Dataset {key.DatasetId} is not dense; partitions hold dense points.");
        }

        var (start, end) = key.Rows(info.Count);
        _dimension = info.Dimension;
        _values = content.Values[(start * _dimension)..(end * _dimension)];
        _weights = content.Weights[start..end];
    }

    public Task<int> PointsAsync() => Task.FromResult(_weights.Length);

    public Task<AssignmentSums> AssignAsync(double[] centres) => Task.FromResult(AssignmentSums.Compute(_values, _weights, _dimension, centres));

    public Task<string> SiloAsync() => Task.FromResult(RuntimeIdentity);
}
