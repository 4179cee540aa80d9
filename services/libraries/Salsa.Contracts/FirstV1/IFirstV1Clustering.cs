using Google.Protobuf.Collections;

namespace Salsa.Contracts.FirstV1;

/// <summary>
/// The clustering fields the first v1 (2026-11-27) gave k-means and annealing results at their top
/// level, kept (deprecated) for its callers beside <c>clustering</c>: filled from it by <see cref="FirstV1Clustering.Fill"/>.
/// </summary>
public interface IFirstV1Clustering
{
    int Clusters { get; set; }

    int Dimension { get; set; }

    RepeatedField<double> Centres { get; }

    RepeatedField<double> ClusterWeights { get; }

    RepeatedField<int> ClusterSizes { get; }

    int Points { get; set; }
}
