using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Fingerprints;

public enum SimilaritySearchMethod
{
    /// <summary>Clusters visited by distance to their centroid, skipped by the triangle inequality; members by the popcount bound.</summary>
    Pruned,

    /// <summary>Every compound compared with the query.</summary>
    BruteForce,
}

/// <summary>Parameters of a batch of top-k similarity searches.</summary>
public sealed record SimilaritySearchOptions
{
    /// <summary>Hits per query.</summary>
    public int K { get; init; } = 10;

    public SimilaritySearchMethod Method { get; init; } = SimilaritySearchMethod.Pruned;

    public ParallelismOptions Parallel { get; init; } = new();

    internal void Validate(SimilarityIndex index)
    {
        index.CheckK(K);
        if (!Enum.IsDefined(Method))
        {
            throw new ClusteringInputException($"Unknown search method {Method}.", nameof(Method));
        }

        Parallel.Validate();
    }
}
