using Salsa.Contracts.Common;

namespace Salsa.Contracts.FirstV1;

/// <summary>Fills a result's first-v1 fields from its clustering (the cost, named differently in each, is the caller's).</summary>
public static class FirstV1Clustering
{
    public static void Fill(IFirstV1Clustering message, ClusteringResult clustering)
    {
        ArgumentNullException.ThrowIfNull(message);
        ArgumentNullException.ThrowIfNull(clustering);
        message.Clusters = clustering.Clusters;
        message.Dimension = clustering.Dimension;
        message.Centres.Add(clustering.Centres);
        message.ClusterWeights.Add(clustering.ClusterWeights);
        message.ClusterSizes.Add(clustering.ClusterSizes);
        message.Points = clustering.Points;
    }
}
