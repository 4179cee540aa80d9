using Salsa.Clustering.Partitions;

namespace Salsa.Grid.Partitions;

[RegisterConverter]
public sealed class PartitionPassConverter : IConverter<PartitionPass, PartitionPassSurrogate>
{
    public PartitionPass ConvertFromSurrogate(in PartitionPassSurrogate surrogate) => PartitionPass.Create(
        (PassKind)surrogate.Kind, surrogate.Length, surrogate.PlanLength, surrogate.BlockSize, surrogate.Kp, surrogate.K, surrogate.Dimension,
        surrogate.Centres, surrogate.LogMass, surrogate.InverseTemperature, surrogate.VectorsT, surrogate.YDotV, surrogate.AssignedUnder);

    public PartitionPassSurrogate ConvertToSurrogate(in PartitionPass value) => new()
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

/// <summary>A pass (annealing or Lloyd) as it travels between silos.</summary>
[GenerateSerializer]
public readonly record struct PartitionPassSurrogate
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
