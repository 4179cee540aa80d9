namespace Salsa.Grid.Partitions;

/// <summary>A partition's sums for one pass, how long its silo computed them (not counting a wait for the silo's cores), the CPU time that took, and where.</summary>
[GenerateSerializer, Immutable]
public sealed record PartitionSums([property: Id(0)] double[] Sums, [property: Id(1)] double ComputeMicroseconds, [property: Id(2)] string Silo)
{
    /// <summary>The CPU time its silo's threads spent on the partition's pass (zero from a silo that did not say).</summary>
    [Id(3)] public double CpuMicroseconds { get; init; }

    /// <summary>The sums' compute as the turn of the silo that answered for partition <paramref name="index"/>.</summary>
    public SiloTurn AsTurn(int index) => new(Silo, [index], ComputeMicroseconds, CpuMicroseconds);
}

/// <summary>A partition's rows: nearest centre and weight of each.</summary>
[GenerateSerializer, Immutable]
public sealed record PartitionRows([property: Id(0)] int[] Assignments, [property: Id(1)] double[] Weights);

/// <summary>What a partition holds: rows, their total weight, dimension, and the silo it is on.</summary>
[GenerateSerializer, Immutable]
public sealed record PartitionInfo([property: Id(0)] int Points, [property: Id(1)] double TotalWeight, [property: Id(2)] int Dimension, [property: Id(3)] string Silo);

/// <summary>A partition's best fingerprints for one query, best first (indices within the partition, labels when the dataset has them), what the search compared, and where.</summary>
[GenerateSerializer, Immutable]
public sealed record PartitionHits(
    [property: Id(0)] int[] Compounds, [property: Id(1)] double[] Similarities, [property: Id(2)] double[] Distances, [property: Id(3)] string[]? Labels,
    [property: Id(4)] long Computed, [property: Id(5)] string Silo);
