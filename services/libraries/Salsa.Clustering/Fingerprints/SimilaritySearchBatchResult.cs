namespace Salsa.Clustering.Fingerprints;

/// <summary>The answers to a batch of queries, in query order.</summary>
public sealed record SimilaritySearchBatchResult
{
    public required IReadOnlyList<SimilaritySearchResult> Results { get; init; }

    /// <summary>Tanimoto comparisons over all queries.</summary>
    public required long DistancesComputed { get; init; }

    public required TimeSpan Elapsed { get; init; }
}
