using Salsa.Clustering.Mds;

namespace Salsa.Mds;

/// <summary>
/// The one step from the algorithm's result to the job's: the <c>salsa.mds.v1.EmbeddingResult</c>
/// message that gRPC returns, REST returns as JSON, the job record keeps and the <c>embedding</c>
/// artifact holds.
/// </summary>
public static class EmbeddingResults
{
    public static Contracts.Mds.EmbeddingResult ToMessage(this SmacofResult result, string input, string dissimilarity, int[] itemIndices)
    {
        ArgumentNullException.ThrowIfNull(result);
        var message = new Contracts.Mds.EmbeddingResult
        {
            Input = input,
            Dissimilarity = dissimilarity,
            Items = result.Count,
            Dimensions = result.Dimensions,
            NormalisedStress = result.NormalizedStress,
            Stress = result.Stress,
            Iterations = result.Iterations,
            Converged = result.Converged,
            ElapsedMs = result.Elapsed.TotalMilliseconds,
        };
        message.Coordinates.Add(result.Coordinates);
        message.ItemIndices.Add(itemIndices);
        message.StressTrajectory.Add(result.StressTrajectory);
        return message;
    }
}
