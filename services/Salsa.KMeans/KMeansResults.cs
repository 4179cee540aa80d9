using Salsa.Contracts.Common;
using Salsa.Contracts.FirstV1;
using Salsa.Hosting.Clustering;
using KMeansResult = Salsa.Clustering.KMeans.KMeansResult;

namespace Salsa.KMeans;

/// <summary>
/// The one step from the algorithm's result to the job's: the <c>salsa.kmeans.v1.KMeansResult</c>
/// message that gRPC returns, REST returns as JSON and the job record keeps.
/// </summary>
public static class KMeansResults
{
    public static Contracts.KMeans.KMeansResult ToMessage(this KMeansResult result, string input, int points, ClusterPlacement? placement = null)
    {
        ArgumentNullException.ThrowIfNull(result);
        var message = new Contracts.KMeans.KMeansResult
        {
            Clustering = ClusteringResults.WithCentres("kmeans", points, result.Clusters, result.Dimension, result.Centres, result.ClusterWeights, result.ClusterSizes, result.Inertia),
            Input = input,
            Iterations = result.Iterations,
            BestRestart = result.BestRestart,
            EmptyClusterRepairs = result.EmptyClusterRepairs,
            ElapsedMs = result.Elapsed.TotalMilliseconds,
            Placement = placement,
        };
        message.RestartInertias.Add(result.RestartInertias);
        FirstV1Clustering.Fill(message, message.Clustering);
#pragma warning disable CS0612 // the first v1's cost, filled for its callers
        message.Inertia = result.Inertia;
#pragma warning restore CS0612
        return message;
    }
}
