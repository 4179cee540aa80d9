namespace Salsa.Clustering.Fingerprints;

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

/// <summary>One compound found: its index, Tanimoto similarity to the query and distance 1 − similarity.</summary>
public readonly record struct SimilarityHit(int Compound, double Similarity, double Distance);
