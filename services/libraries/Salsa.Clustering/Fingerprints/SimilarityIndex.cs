namespace Salsa.Clustering.Fingerprints;

// Design: built once by one thread, read-only afterwards; every search keeps its state (heap, visiting
// order) in locals, so ranks of a batch and any other threads search one index at once without locks.
/// <summary>
/// Exact top-k Tanimoto search over a fingerprint set, pruned through a clustering of it. Each
/// cluster keeps a pivot (its centroid), its radius (the largest member–centroid distance) and each
/// member's distance to the centroid. A query visits clusters by increasing distance to their
/// centroids and skips a cluster when d(q, c) − radius exceeds the current k-th best distance: the
/// Soergel distance is a metric, so no member can then be closer. Inside a visited cluster a member
/// is skipped when |d(q, c) − d(c, m)| (the same triangle inequality, member by member) or its
/// popcount alone rules it out. Ties are broken by compound index, so the answer is exactly the
/// brute-force one. Immutable once built: any number of threads may search it at once.
/// </summary>
public sealed partial class SimilarityIndex
{
    // Rounding slack for the triangle test: computed distances are within a few ulps (~1e-16) of the
    // exact rationals, and two different distances between prints of ≤ 65,536 bits differ by at least
    // 1/65,536² ≈ 2e-10, so a margin of 1e-12 never skips a cluster that holds an answer.
    private const double TriangleSlack = 1e-12;

    private readonly BinaryVectors _points;
    private readonly int[] _centroids;
    private readonly bool[] _centroidIsMember;
    private readonly double[] _radii;
    private readonly int[] _members;
    private readonly double[] _memberDistances;
    private readonly ulong[] _memberWords;
    private readonly ulong[] _centroidWords;
    private readonly int[] _centroidPopCounts;
    private readonly int[] _memberPopCounts;
    private readonly int[] _memberOffsets;
    private readonly double _maxRadius;

    private SimilarityIndex(BinaryVectors points, int[] assignments, int[] centroids)
    {
        _points = points;
        _centroids = centroids;
        var k = centroids.Length;
        _centroidIsMember = new bool[k];
        _radii = new double[k];
        for (var c = 0; c < k; c++)
        {
            _centroidIsMember[c] = assignments[centroids[c]] == c;
        }

        // Members by cluster in index order. A centroid that belongs to its own cluster is compared
        // once, as the centroid, and is left out of the member list.
        _memberOffsets = new int[k + 1];
        for (var i = 0; i < assignments.Length; i++)
        {
            if (centroids[assignments[i]] != i)
            {
                _memberOffsets[assignments[i] + 1]++;
            }
        }

        for (var c = 0; c < k; c++)
        {
            _memberOffsets[c + 1] += _memberOffsets[c];
        }

        var cursor = _memberOffsets[..k];
        _members = new int[_memberOffsets[k]];
        _memberDistances = new double[_memberOffsets[k]];
        for (var i = 0; i < assignments.Length; i++)
        {
            var cluster = assignments[i];
            if (centroids[cluster] != i)
            {
                var distance = Tanimoto.Distance(points, centroids[cluster], i);
                _memberDistances[cursor[cluster]] = distance;
                _members[cursor[cluster]++] = i;
                _radii[cluster] = Math.Max(_radii[cluster], distance);
            }
        }

        foreach (var radius in _radii)
        {
            _maxRadius = Math.Max(_maxRadius, radius);
        }

        // Centroids' and members' prints copied in the order they are read: each pass is one sequential
        // run, not a gather from all over the set (L1 and the prefetcher instead of L3 per comparison).
        var words = points.Words;
        _centroidWords = new ulong[k * words];
        _centroidPopCounts = new int[k];
        for (var c = 0; c < k; c++)
        {
            points.Fingerprint(centroids[c]).CopyTo(_centroidWords.AsSpan(c * words, words));
            _centroidPopCounts[c] = points.PopCount(centroids[c]);
        }

        _memberWords = new ulong[_members.Length * words];
        _memberPopCounts = new int[_members.Length];
        for (var at = 0; at < _members.Length; at++)
        {
            points.Fingerprint(_members[at]).CopyTo(_memberWords.AsSpan(at * words, words));
            _memberPopCounts[at] = points.PopCount(_members[at]);
        }
    }

    public int Count => _points.Count;

    public int Bits => _points.Bits;

    public int Clusters => _centroids.Length;

    /// <summary>The largest distance from a member of <paramref name="cluster"/> to its centroid.</summary>
    public double Radius(int cluster) => _radii[cluster];

    public static SimilarityIndex Build(BinaryVectors points, ButinaResult clustering)
    {
        ArgumentNullException.ThrowIfNull(clustering);
        return Build(points, clustering.Assignments, clustering.Centroids);
    }

    /// <summary>
    /// An index over any clustering of <paramref name="points"/>: a cluster per compound and a pivot
    /// compound per cluster (normally one of its members; any compound keeps the search exact).
    /// </summary>
    public static SimilarityIndex Build(BinaryVectors points, IReadOnlyList<int> assignments, IReadOnlyList<int> centroids)
    {
        ArgumentNullException.ThrowIfNull(points);
        ArgumentNullException.ThrowIfNull(assignments);
        ArgumentNullException.ThrowIfNull(centroids);
        if (assignments.Count != points.Count)
        {
            throw new ClusteringInputException($"{assignments.Count} cluster assignments for {points.Count} fingerprints.", nameof(assignments));
        }

        if (centroids.Count == 0)
        {
            throw new ClusteringInputException("A clustering needs at least one cluster.", nameof(centroids));
        }

        for (var i = 0; i < assignments.Count; i++)
        {
            if (assignments[i] < 0 || assignments[i] >= centroids.Count)
            {
                throw new ClusteringInputException($"Fingerprint {i} is assigned to cluster {assignments[i]}; there are {centroids.Count} clusters.", nameof(assignments));
            }
        }

        for (var c = 0; c < centroids.Count; c++)
        {
            if (centroids[c] < 0 || centroids[c] >= points.Count)
            {
                throw new ClusteringInputException($"The centroid of cluster {c} is compound {centroids[c]}; there are {points.Count} compounds.", nameof(centroids));
            }
        }

        return new SimilarityIndex(points, [.. assignments], [.. centroids]);
    }
}
