using System.Text.Json;
using System.Text.Json.Serialization;
using Salsa.Clustering.Annealing;

namespace Salsa.Cluster.Annealing;

/// <summary>An annealing pass as it travels between silos.</summary>
[GenerateSerializer]
public readonly record struct AnnealingPassSurrogate
{
    [Id(0)] public int Kind { get; init; }
    [Id(1)] public int Length { get; init; }
    [Id(2)] public int PlanLength { get; init; }
    [Id(3)] public int? BlockSize { get; init; }
    [Id(4)] public int Kp { get; init; }
    [Id(5)] public int K { get; init; }
    [Id(6)] public int Dimension { get; init; }
    [Id(7)] public double[] Centres { get; init; }
    [Id(8)] public double[] LogMass { get; init; }
    [Id(9)] public double InverseTemperature { get; init; }
    [Id(10)] public double[]? VectorsT { get; init; }
    [Id(11)] public double[]? YDotV { get; init; }
    [Id(12)] public double[]? AssignedUnder { get; init; }
}

[RegisterConverter]
public sealed class AnnealingPassConverter : IConverter<AnnealingPass, AnnealingPassSurrogate>
{
    public AnnealingPass ConvertFromSurrogate(in AnnealingPassSurrogate surrogate) => AnnealingPass.Create(
        (AnnealingPassKind)surrogate.Kind, surrogate.Length, surrogate.PlanLength, surrogate.BlockSize, surrogate.Kp, surrogate.K, surrogate.Dimension,
        surrogate.Centres, surrogate.LogMass, surrogate.InverseTemperature, surrogate.VectorsT, surrogate.YDotV, surrogate.AssignedUnder);

    public AnnealingPassSurrogate ConvertToSurrogate(in AnnealingPass value) => new()
    {
        Kind = (int)value.Kind,
        Length = value.Length,
        PlanLength = value.PlanLength,
        BlockSize = value.BlockSize,
        Kp = value.Kp,
        K = value.K,
        Dimension = value.Dimension,
        Centres = value.Centres,
        LogMass = value.LogMass,
        InverseTemperature = value.InverseTemperature,
        VectorsT = value.VectorsT,
        YDotV = value.YDotV,
        AssignedUnder = value.AssignedUnder,
    };
}

/// <summary>A partition's sums for one pass, how long its silo computed them (not counting a wait for the silo's cores), and where.</summary>
[GenerateSerializer, Immutable]
public sealed record PartitionSums([property: Id(0)] double[] Sums, [property: Id(1)] double ComputeMicroseconds, [property: Id(2)] string Silo)
{
    /// <summary>
    /// The compute a fan-out of one pass had to wait for: a silo computes its partitions one after
    /// another, so the busiest silo's total. The rest of the wait is messaging.
    /// </summary>
    public static double CriticalCompute(IEnumerable<PartitionSums> sums) =>
        sums.GroupBy(s => s.Silo, StringComparer.Ordinal).Max(g => g.Sum(s => s.ComputeMicroseconds));
}

/// <summary>A partition's rows: nearest centre and weight of each.</summary>
[GenerateSerializer, Immutable]
public sealed record PartitionRows([property: Id(0)] int[] Assignments, [property: Id(1)] double[] Weights);

/// <summary>What a partition holds: rows, their total weight, dimension, and the silo it is on.</summary>
[GenerateSerializer, Immutable]
public sealed record PartitionInfo([property: Id(0)] int Points, [property: Id(1)] double TotalWeight, [property: Id(2)] int Dimension, [property: Id(3)] string Silo);

/// <summary>
/// The algorithm's state kept in grain state (checkpoints, results) as JSON: every double to the bit
/// (the shortest text that reads back to the same value), −∞ log masses included.
/// </summary>
public static class StateJson
{
    private static readonly JsonSerializerOptions s_options = new(JsonSerializerDefaults.Web)
    {
        NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
    };

    public static string Write<T>(T value) => JsonSerializer.Serialize(value, s_options);

    public static T Read<T>(string json) => JsonSerializer.Deserialize<T>(json, s_options) ?? throw new JsonException($"No {typeof(T).Name} in the state.");
}
