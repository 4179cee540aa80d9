using System.Diagnostics;
using Salsa.Clustering.Partitions;

namespace Salsa.Grid.Partitions;

/// <summary>
/// A silo's part of one pass in the pass's fan-in tree: the partitions of the grid (indices of
/// <see cref="Count"/> over <see cref="DatasetId"/>) it answers for, the silos below it, and how
/// long its caller waits for its answer (longer the more levels wait below it). <see cref="HandingOver"/>:
/// the coordinator is loading some of the silo's partitions' rows on other silos, to move them there
/// (a silo leaving waits for that rather than going with them).
/// </summary>
[GenerateSerializer, Immutable]
public sealed record SiloPassPlan(
    [property: Id(0)] string Silo, [property: Id(1)] Guid DatasetId, [property: Id(2)] int Count, [property: Id(3)] int[] Partitions,
    [property: Id(4)] SiloPassPlan[] Children, [property: Id(5)] TimeSpan Timeout, [property: Id(6)] bool HandingOver = false)
{
    /// <summary>Its partitions and those of every silo below it.</summary>
    public IEnumerable<int> AllPartitions => Partitions.Concat(Children.SelectMany(c => c.AllPartitions));

    /// <summary>The grain key of partition <paramref name="index"/> of the grid.</summary>
    public string KeyOf(int index) => new PartitionKey(DatasetId, index, Count).ToGrainKey();
}

/// <summary>A node of the grid's reduction tree, partitions <c>[Lo, Hi)</c>, and its sums.</summary>
[GenerateSerializer, Immutable]
public sealed record ReducedSums([property: Id(0)] int Lo, [property: Id(1)] int Hi, [property: Id(2)] double[] Sums)
{
    public ReductionTree.Node Node => new(Lo, Hi);
}

/// <summary>
/// What one silo computed for a pass: the partitions it answered for, how long it computed them
/// (one after another, not counting a wait for its cores) and the CPU time that took.
/// </summary>
[GenerateSerializer, Immutable]
public sealed record SiloTurn([property: Id(0)] string Silo, [property: Id(1)] int[] Partitions, [property: Id(2)] double ComputeMicroseconds, [property: Id(3)] double CpuMicroseconds)
{
    /// <summary>
    /// The compute a pass had to wait for: a silo computes its partitions one after another, so
    /// the busiest silo's total. The rest of the wait is messaging.
    /// </summary>
    public static double CriticalCompute(IEnumerable<SiloTurn> turns) =>
        turns.GroupBy(t => t.Silo, StringComparer.Ordinal).Select(g => g.Sum(t => t.ComputeMicroseconds)).DefaultIfEmpty(0).Max();
}

/// <summary>
/// A silo's answer to a pass, for its subtree of the fan-in tree: the sums as the fewest nodes of
/// the reduction tree, the partitions nobody answered for, each silo's turn, how long this silo took
/// from the call's arrival to its answer (its compute and its children's included), and the two
/// instants on its monotonic clock (<see cref="Stopwatch.GetTimestamp"/>: comparable with a caller's
/// only on the same host, where they split a call's travel into its way in and its way back).
/// </summary>
[GenerateSerializer, Immutable]
public sealed record SiloTreeAnswer(
    [property: Id(0)] ReducedSums[] Nodes, [property: Id(1)] int[] Missing, [property: Id(2)] SiloTurn[] Turns,
    [property: Id(3)] double TurnMicroseconds, [property: Id(4)] long ArrivedTimestamp, [property: Id(5)] long AnsweredTimestamp)
{
    /// <summary>Silos of the subtree asked to leave: their partitions are moved off before the next pass.</summary>
    [Id(6)] public string[] Leaving { get; init; } = [];
}
