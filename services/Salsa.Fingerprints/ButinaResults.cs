using Salsa.Contracts.Common;
using Salsa.Contracts.Fingerprints;
using ButinaResult = Salsa.Clustering.Fingerprints.ButinaResult;

namespace Salsa.Fingerprints;

/// <summary>
/// The one step from the algorithm's result to the job's: the <c>salsa.fingerprints.v1.ButinaResult</c>
/// message that gRPC returns, REST returns as JSON and the job record keeps — the clusters in the
/// order the Butina pass made them, each with its centroid (the compound whose neighbour list made
/// it), medoid, size and the mean Tanimoto similarity of the other members to the centroid (1 for a singleton).
/// </summary>
public static class ButinaResults
{
    public static Contracts.Fingerprints.ButinaResult ToMessage(this ButinaResult result, int points)
    {
        ArgumentNullException.ThrowIfNull(result);
        var clusters = Enumerable.Range(0, result.Clusters).Select(c => new ButinaCluster
        {
            Centroid = result.Centroids[c],
            Medoid = result.Medoids[c],
            Size = result.ClusterSizes[c],
            MeanSimilarity = result.MeanSimilarityToCentroid[c],
        }).ToList();

        // Butina's clusters have no centre in a vector space: sizes, and each cluster's medoid as its representative.
        var clustering = new ClusteringResult { Algorithm = "butina", Points = points, Clusters = result.Clusters };
        clustering.ClusterSizes.Add(clusters.Select(c => c.Size));
        clustering.ClusterWeights.Add(clusters.Select(c => (double)c.Size));
        clustering.Representatives.Add(clusters.Select(c => c.Medoid));

        var message = new Contracts.Fingerprints.ButinaResult
        {
            Clustering = clustering,
            Cutoff = result.Cutoff,
            Singletons = clusters.Count(c => c.Size == 1),
            ElapsedMs = result.Elapsed.TotalMilliseconds,
#pragma warning disable CS0612 // the first v1's fields, filled for its callers
            Clusters = result.Clusters,
            Points = points,
#pragma warning restore CS0612
        };
        message.Cluster.Add(clusters);
        return message;
    }
}
