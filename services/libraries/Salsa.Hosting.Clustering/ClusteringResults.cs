using Salsa.Contracts.Common;

namespace Salsa.Hosting.Clustering;

/// <summary>Builds the shape every clustering job shares (<c>salsa.common.v1.ClusteringResult</c>) from an algorithm's parts.</summary>
public static class ClusteringResults
{
    /// <summary>A clustering with centres in the points' space (annealing, k-means).</summary>
    public static ClusteringResult WithCentres(string algorithm, int points, int clusters, int dimension,
        IEnumerable<double> centres, IEnumerable<double> clusterWeights, IEnumerable<int> clusterSizes, double cost)
    {
        var clustering = new ClusteringResult { Algorithm = algorithm, Points = points, Clusters = clusters, Dimension = dimension, Cost = cost };
        clustering.Centres.Add(centres);
        clustering.ClusterWeights.Add(clusterWeights);
        clustering.ClusterSizes.Add(clusterSizes);
        return clustering;
    }
}
