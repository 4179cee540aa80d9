
namespace Salsa.Hosting.Clustering;

/// <summary>A clustering job's result, which can say what it found in the shape every clustering job shares.</summary>
public interface IClusteringSummary
{
    /// <summary>The declared cross-service shape (<c>salsa.common.v1.ClusteringResult</c>): stored as the job's <c>clustering</c> artifact and returned by its GetResult.</summary>
    Contracts.Common.ClusteringResult ToClustering();
}

/// <summary>Builds the shared shape from a vector clustering's parts.</summary>
public static class ClusteringResults
{
    /// <summary>A clustering with centres in the points' space (annealing, k-means).</summary>
    public static Contracts.Common.ClusteringResult WithCentres(string algorithm, int points, int clusters, int dimension,
        IEnumerable<double> centres, IEnumerable<double> clusterWeights, IEnumerable<int> clusterSizes, double cost)
    {
        var clustering = new Contracts.Common.ClusteringResult { Algorithm = algorithm, Points = points, Clusters = clusters, Dimension = dimension, Cost = cost };
        clustering.Centres.Add(centres);
        clustering.ClusterWeights.Add(clusterWeights);
        clustering.ClusterSizes.Add(clusterSizes);
        return clustering;
    }
}
