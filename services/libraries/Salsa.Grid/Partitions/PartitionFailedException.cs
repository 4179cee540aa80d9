namespace Salsa.Grid.Partitions;

/// <summary>A partition failed in a way asking again will not mend (its data, or a lost silo past the retry time).</summary>
public sealed class PartitionFailedException(int partition, Exception inner)
    : Exception($"Partition {partition} failed: {inner.Message}", inner)
{
    public int Partition { get; } = partition;
}
