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

/// <summary>One compound found: its index, Tanimoto similarity to the query and distance 1 − similarity.</summary>
public readonly record struct SimilarityHit(int Compound, double Similarity, double Distance);

/// <summary>The answer to one query, best hit first (ties by compound index), and what it cost.</summary>
public sealed record SimilaritySearchResult
{
    public required IReadOnlyList<SimilarityHit> Hits { get; init; }

    /// <summary>Tanimoto comparisons made, centroids included (brute force: the set's size).</summary>
    public required long DistancesComputed { get; init; }

    public required int ClustersVisited { get; init; }

    /// <summary>Clusters with members other than the centroid that the triangle inequality ruled out.</summary>
    public required int ClustersSkipped { get; init; }

    /// <summary>Members of visited clusters ruled out without a comparison: by |d(q, c) − d(c, m)| or by their popcount.</summary>
    public required long MembersSkipped { get; init; }
}

/// <summary>The answers to a batch of queries, in query order.</summary>
public sealed record SimilaritySearchBatchResult
{
    public required IReadOnlyList<SimilaritySearchResult> Results { get; init; }

    /// <summary>Tanimoto comparisons over all queries.</summary>
    public required long DistancesComputed { get; init; }

    public required TimeSpan Elapsed { get; init; }
}
