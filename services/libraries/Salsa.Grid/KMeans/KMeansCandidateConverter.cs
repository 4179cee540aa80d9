using Salsa.Clustering.KMeans;

namespace Salsa.Grid.KMeans;

[RegisterConverter]
public sealed class KMeansCandidateConverter : IConverter<KMeansCandidate, KMeansCandidateSurrogate>
{
    public KMeansCandidate ConvertFromSurrogate(in KMeansCandidateSurrogate surrogate) => new(surrogate.Value, surrogate.Coordinates);

    public KMeansCandidateSurrogate ConvertToSurrogate(in KMeansCandidate value) => new() { Value = value.Value, Coordinates = value.Coordinates };
}

/// <summary>A partition's candidate point (a k-means++ draw, a repair) as it travels between silos.</summary>
[GenerateSerializer]
public readonly record struct KMeansCandidateSurrogate
{
    [Id(0)] public double Value { get; init; }
    [Id(1)] public double[] Coordinates { get; init; }
}
