using Salsa.Contracts.Common;
using Salsa.Contracts.FirstV1;
using AnnealingResult = Salsa.Clustering.Annealing.AnnealingResult;

namespace Salsa.Hosting.Clustering.Annealing;

/// <summary>
/// The one step from the algorithm's result to the job's: the <c>salsa.annealing.v1.AnnealingResult</c>
/// message that gRPC returns, REST returns as JSON and the job record keeps.
/// </summary>
public static class AnnealingResults
{
    public static Contracts.Annealing.AnnealingResult ToMessage(this AnnealingResult result, string input, int points, ClusterPlacement? placement = null)
    {
        ArgumentNullException.ThrowIfNull(result);
        var message = new Contracts.Annealing.AnnealingResult
        {
            Clustering = ClusteringResults.WithCentres("annealing", points, result.Clusters, result.Dimension, result.Centres, result.ClusterWeights, result.ClusterSizes, result.WeightedCost),
            Input = input,
            Iterations = result.Iterations,
            ElapsedMs = result.Elapsed.TotalMilliseconds,
            Placement = placement,
        };
        message.Trajectory.Add(result.Trajectory.Select(s => new Contracts.Annealing.AnnealingStep
        {
            Temperature = s.Temperature,
            Clusters = s.Clusters,
            FreeEnergy = s.FreeEnergy,
            Iterations = s.Iterations,
        }));
        FirstV1Clustering.Fill(message, message.Clustering);
#pragma warning disable CS0612 // the first v1's cost, filled for its callers
        message.WeightedCost = result.WeightedCost;
#pragma warning restore CS0612
        return message;
    }
}
