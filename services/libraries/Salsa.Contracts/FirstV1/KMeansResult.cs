using Salsa.Contracts.FirstV1;

namespace Salsa.Contracts.KMeans;

/// <summary>The generated message, with the first v1's fields (<see cref="IFirstV1Clustering"/>).</summary>
public sealed partial class KMeansResult : IFirstV1Clustering;
