using Salsa.Clustering.KMeans;

namespace Salsa.Grid.KMeans;

[RegisterConverter]
public sealed class KMeansSeedStepConverter : IConverter<KMeansSeedStep, KMeansSeedStepSurrogate>
{
    public KMeansSeedStep ConvertFromSurrogate(in KMeansSeedStepSurrogate surrogate) =>
        new(surrogate.Centres, surrogate.Dimension, surrogate.PlanLength, surrogate.BlockSize);

    public KMeansSeedStepSurrogate ConvertToSurrogate(in KMeansSeedStep value) =>
        new() { Centres = value.Centres, Dimension = value.Dimension, PlanLength = value.PlanLength, BlockSize = value.BlockSize };
}

/// <summary>A k-means++ seeding step as it travels between silos.</summary>
[GenerateSerializer]
public readonly record struct KMeansSeedStepSurrogate
{
    [Id(0)] public double[] Centres { get; init; }
    [Id(1)] public int Dimension { get; init; }
    [Id(2)] public int PlanLength { get; init; }
    [Id(3)] public int? BlockSize { get; init; }
}
