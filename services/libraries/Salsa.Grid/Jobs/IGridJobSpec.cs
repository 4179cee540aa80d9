namespace Salsa.Grid.Jobs;

/// <summary>What every job on the cluster names: its dataset and partition grid (the algorithm's options are its own).</summary>
public interface IGridJobSpec
{
    Guid DatasetId { get; }

    /// <summary>The partition grid: the result depends on it, never on the silos.</summary>
    int Partitions { get; }

    /// <summary>Throws a clear exception when the algorithm's options are not valid.</summary>
    void Validate();
}
