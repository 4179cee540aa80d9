using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Fingerprints;

/// <summary>Parameters of Taylor–Butina clustering.</summary>
public sealed record ButinaOptions
{
    /// <summary>
    /// Tanimoto distance cut-off, strictly between 0 and 1: j is a neighbour of i when
    /// 1 − Tanimoto(i, j) ≤ cut-off, compared as RDKit compares it — <c>1.0 − (double)c / (|i| + |j| − c)</c>
    /// (c: common bits) in double precision, with ≤ — so pairs exactly at the cut-off count as RDKit
    /// counts them. The default 0.35 is similarity ≥ 0.65.
    /// </summary>
    public double Cutoff { get; init; } = 0.35;

    /// <summary>
    /// Clusters of at most this many members get the exact medoid and mean pairwise similarity
    /// (all member pairs: size²/2 comparisons); larger ones report their centroid as medoid and NaN.
    /// </summary>
    public int ExactStatisticsLimit { get; init; } = 4096;

    public ParallelismOptions Parallel { get; init; } = new();

    internal void Validate()
    {
        if (!(Cutoff > 0 && Cutoff < 1))
        {
            throw RequestNames.Invalid(nameof(Cutoff), $"(the Tanimoto distance cut-off) must lie strictly between 0 and 1; it is {Cutoff}.");
        }

        if (ExactStatisticsLimit < 1)
        {
            throw RequestNames.Invalid(nameof(ExactStatisticsLimit), $"must be at least 1; it is {ExactStatisticsLimit}.");
        }

        Parallel.Validate();
    }
}

/// <summary>
/// The outcome of Taylor–Butina clustering: exactly RDKit's <c>Butina.ClusterData</c> on the same
/// fingerprints and cut-off. Compounds are taken by decreasing neighbour count, ties by decreasing
/// index (RDKit sorts (count, index) pairs in reverse); each one not yet in a cluster becomes a centroid
/// and takes its neighbours not yet in one. Clusters are numbered in that order; each cluster's members
/// are listed centroid first, then the others by ascending index — RDKit's tuples, element for element.
/// </summary>
public sealed record ButinaResult
{
    public required double Cutoff { get; init; }

    public required int Clusters { get; init; }

    /// <summary>Each compound's cluster.</summary>
    public required int[] Assignments { get; init; }

    /// <summary>Each cluster's Butina centroid: the compound whose neighbour list made the cluster.</summary>
    public required int[] Centroids { get; init; }

    /// <summary>
    /// Each cluster's medoid: the member with the greatest total similarity to the other members (ties:
    /// the lowest index). Exact for clusters up to <see cref="ButinaOptions.ExactStatisticsLimit"/>
    /// members; larger clusters report their centroid.
    /// </summary>
    public required int[] Medoids { get; init; }

    public required int[] ClusterSizes { get; init; }

    /// <summary>Members of all clusters, cluster by cluster; cluster c at [MemberOffsets[c], MemberOffsets[c+1]).</summary>
    public required int[] Members { get; init; }

    public required int[] MemberOffsets { get; init; }

    /// <summary>
    /// Mean Tanimoto similarity of each cluster's members other than the centroid to the centroid
    /// (at least 1 − cut-off by construction); 1 for a singleton.
    /// </summary>
    public required double[] MeanSimilarityToCentroid { get; init; }

    /// <summary>
    /// Mean Tanimoto similarity over all pairs of distinct members; 1 for a singleton, NaN for clusters
    /// above <see cref="ButinaOptions.ExactStatisticsLimit"/> members.
    /// </summary>
    public required double[] MeanPairwiseSimilarity { get; init; }

    /// <summary>Each compound's neighbours within the cut-off, itself not counted.</summary>
    public required int[] NeighbourCounts { get; init; }

    /// <summary>Unordered pairs within the cut-off.</summary>
    public required long NeighbourPairs { get; init; }

    /// <summary>Tanimoto similarities computed for the neighbour lists (the popcount bound skips the rest of the n(n−1)/2).</summary>
    public required long SimilaritiesComputed { get; init; }

    public required TimeSpan Elapsed { get; init; }

    public ReadOnlySpan<int> MembersOf(int cluster) => Members.AsSpan(MemberOffsets[cluster], MemberOffsets[cluster + 1] - MemberOffsets[cluster]);
}
