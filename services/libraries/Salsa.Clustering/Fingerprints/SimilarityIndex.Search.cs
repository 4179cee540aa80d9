using System.Runtime.CompilerServices;
namespace Salsa.Clustering.Fingerprints;

public sealed partial class SimilarityIndex
{
    /// <summary>Resolution of the visiting order: distances in [0, 1] fall into this many buckets.</summary>
    private const int OrderBuckets = 256;

    /// <summary>Prints compared per call of the one-against-many kernel (its counts live on the stack).</summary>
    private const int ChunkRows = 256;

    /// <summary>The <paramref name="k"/> compounds most similar to <paramref name="query"/>, pruned through the clusters.</summary>
    public SimilaritySearchResult Search(ReadOnlySpan<ulong> query, int k)
    {
        CheckQuery(query);
        CheckK(k);
        return SearchPruned(query, Tanimoto.PopCount(query), k);
    }

    /// <summary>The same answer by comparing the query with every compound.</summary>
    public SimilaritySearchResult SearchBruteForce(ReadOnlySpan<ulong> query, int k)
    {
        CheckQuery(query);
        CheckK(k);
        return SearchAll(query, Tanimoto.PopCount(query), k);
    }

    /// <summary>
    /// The brute-force answer over a whole set from the answers of its parts (each the
    /// <paramref name="k"/> best of its rows; <c>Offset</c>: its first row's index in the set): the
    /// same hits, in the same order, as <see cref="SearchBruteForce"/> over the whole set — the order
    /// (distance, then compound index) is total, so the k best of the union are among the parts' k best.
    /// </summary>
    public static SimilaritySearchResult Merge(IReadOnlyList<(SimilaritySearchResult Answer, int Offset)> parts, int k)
    {
        ArgumentNullException.ThrowIfNull(parts);
        ArgumentOutOfRangeException.ThrowIfLessThan(k, 1);
        var hits = new TopHits(k);
        var computed = 0L;
        foreach (var (answer, offset) in parts)
        {
            computed += answer.DistancesComputed;
            foreach (var hit in answer.Hits)
            {
                hits.Offer(hit.Distance, hit.Similarity, offset + hit.Compound);
            }
        }

        return new SimilaritySearchResult { Hits = hits.ToSortedArray(), DistancesComputed = computed, ClustersVisited = 0, ClustersSkipped = 0, MembersSkipped = 0 };
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    internal SimilaritySearchResult SearchPruned(ReadOnlySpan<ulong> query, int popCount, int k)
    {
        var hits = new TopHits(k);

        // Every centroid first: it orders the clusters, and a centroid that is a member is a candidate
        // too, so the k-th best distance is already tight when the first cluster is opened.
        var centreDistances = new double[Clusters];
        Span<int> common = stackalloc int[ChunkRows];
        for (var first = 0; first < Clusters; first += ChunkRows)
        {
            var run = common[..Math.Min(ChunkRows, Clusters - first)];
            Tanimoto.CommonBitsRun(query, _centroidWords.AsSpan(first * query.Length, run.Length * query.Length), run);
            for (var t = 0; t < run.Length; t++)
            {
                var c = first + t;
                var similarity = Tanimoto.SimilarityFromCounts(run[t], popCount, _centroidPopCounts[c]);
                centreDistances[c] = 1.0 - similarity;
                if (_centroidIsMember[c])
                {
                    hits.Offer(1.0 - similarity, similarity, _centroids[c]);
                }
            }
        }

        var (order, bucketStarts) = OrderByCentreDistance(centreDistances);
        var computed = (long)Clusters;
        var visited = 0;
        var skipped = 0;
        var membersSkipped = 0L;
        for (var bucket = 0; bucket < OrderBuckets; bucket++)
        {
            // Every cluster from here on is at least this far: once even the widest radius cannot reach
            // back within the k-th best distance, no later cluster can either.
            if ((double)bucket / OrderBuckets - _maxRadius > hits.Worst + TriangleSlack)
            {
                skipped += bucketStarts[OrderBuckets] - bucketStarts[bucket];
                break;
            }

            foreach (var cluster in order.AsSpan(bucketStarts[bucket], bucketStarts[bucket + 1] - bucketStarts[bucket]))
            {
                var toCentre = centreDistances[cluster];
                if (toCentre - _radii[cluster] > hits.Worst + TriangleSlack)
                {
                    skipped++;
                    continue;
                }

                visited++;
                for (var at = _memberOffsets[cluster]; at < _memberOffsets[cluster + 1]; at++)
                {
                    // The popcount bound never exceeds the distance it bounds (monotone rounding): no slack.
                    var memberPopCount = _memberPopCounts[at];
                    if (Math.Abs(toCentre - _memberDistances[at]) > hits.Worst + TriangleSlack
                        || Tanimoto.DistanceBound(popCount, memberPopCount) > hits.Worst)
                    {
                        membersSkipped++;
                        continue;
                    }

                    var shared = Tanimoto.CommonBits(query, _memberWords.AsSpan(at * query.Length, query.Length));
                    var similarity = Tanimoto.SimilarityFromCounts(shared, popCount, memberPopCount);
                    computed++;
                    hits.Offer(1.0 - similarity, similarity, _members[at]);
                }
            }
        }

        return new SimilaritySearchResult
        {
            Hits = hits.ToSortedArray(),
            DistancesComputed = computed,
            ClustersVisited = visited,
            ClustersSkipped = skipped,
            MembersSkipped = membersSkipped,
        };
    }

    /// <summary>
    /// Clusters with members, by increasing d(q, centroid) to 1/<see cref="OrderBuckets"/> and then by
    /// number: a counting sort, O(clusters), where a comparison sort of 20,000 distances per query
    /// cost more than the comparisons it saved. The order only steers pruning; the answer is exact either way.
    /// </summary>
    private (int[] Order, int[] BucketStarts) OrderByCentreDistance(double[] centreDistances)
    {
        var starts = new int[OrderBuckets + 1];
        for (var c = 0; c < Clusters; c++)
        {
            if (_memberOffsets[c + 1] > _memberOffsets[c])
            {
                starts[Bucket(centreDistances[c]) + 1]++;
            }
        }

        for (var b = 0; b < OrderBuckets; b++)
        {
            starts[b + 1] += starts[b];
        }

        var order = new int[starts[OrderBuckets]];
        var cursor = starts[..OrderBuckets];
        for (var c = 0; c < Clusters; c++)
        {
            if (_memberOffsets[c + 1] > _memberOffsets[c])
            {
                order[cursor[Bucket(centreDistances[c])]++] = c;
            }
        }

        return (order, starts);

        static int Bucket(double distance) => Math.Clamp((int)(distance * OrderBuckets), 0, OrderBuckets - 1);
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    internal SimilaritySearchResult SearchAll(ReadOnlySpan<ulong> query, int popCount, int k)
    {
        var hits = new TopHits(k);
        Span<int> common = stackalloc int[ChunkRows];
        for (var first = 0; first < Count; first += ChunkRows)
        {
            var run = common[..Math.Min(ChunkRows, Count - first)];
            Tanimoto.CommonBitsRun(query, _points.Packed.AsSpan(first * query.Length, run.Length * query.Length), run);
            for (var t = 0; t < run.Length; t++)
            {
                var similarity = Tanimoto.SimilarityFromCounts(run[t], popCount, _points.PopCount(first + t));
                hits.Offer(1.0 - similarity, similarity, first + t);
            }
        }

        return new SimilaritySearchResult { Hits = hits.ToSortedArray(), DistancesComputed = Count, ClustersVisited = 0, ClustersSkipped = 0, MembersSkipped = 0 };
    }

    internal void CheckK(int k)
    {
        if (k < 1 || k > Count)
        {
            throw new ClusteringInputException($"k must be between 1 and the number of indexed compounds ({Count}); it is {k}.", nameof(k));
        }
    }

    private void CheckQuery(ReadOnlySpan<ulong> query)
    {
        if (query.Length != _points.Words)
        {
            throw new ClusteringInputException(
                $"The query has {query.Length} 64-bit words; the index holds {Bits}-bit fingerprints ({_points.Words} words each).", nameof(query));
        }

        var tail = Bits % 64;
        if (tail != 0 && query[^1] >> tail != 0)
        {
            throw new ClusteringInputException($"The query sets bits beyond bit {Bits - 1}; the index holds {Bits}-bit fingerprints.", nameof(query));
        }
    }
}
