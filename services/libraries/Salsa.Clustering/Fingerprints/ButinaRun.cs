using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading.Channels;
using Salsa.Ccr;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Fingerprints;

// Design: one run's shared state, built phase by phase. In each phase every array has one kind of
// writer — the search appends to its rank's own pair list and bumps the shared degree counters with
// Interlocked (counts do not depend on order); rank 0 alone lays out the rows and runs the Butina pass;
// each rank fills rows through Interlocked cursors, then sorts only its own rows (so the order the
// fill happened in is erased) and computes only its own clusters' statistics. A barrier separates each
// phase from the next one that reads what it wrote. No lock is held across a barrier, so nothing can
// deadlock; a failing or cancelled rank aborts the group at the next barrier.
/// <summary>One Taylor–Butina run: the state the ranks share and the rank body.</summary>
internal sealed class ButinaRun(BinaryVectors points, ButinaOptions options, ChannelWriter<ClusteringProgress>? progress)
{
    private readonly Stopwatch _clock = Stopwatch.StartNew();
    private readonly PopCountOrder _order = new(points, options.Cutoff);
    private readonly int[] _degrees = new int[points.Count];
    private readonly List<int>[] _pairs = new List<int>[options.Parallel.Ranks];
    private readonly long[] _computed = new long[options.Parallel.Ranks];
    private long[] _searchWork = null!;
    private int[] _offsets = null!;
    private int[] _cursors = null!;
    private int[] _neighbours = null!;
    private ButinaClusters _clusters = null!;
    private ButinaStatistics _statistics = null!;
    private ButinaResult? _result;

    private int Count => points.Count;

    public ButinaResult Execute(CancellationToken cancellationToken)
    {
        _searchWork = WorkSplit.Prefix(Count, _order.Candidates);
        ClusteringExecution.Run(options.Parallel, cancellationToken, comm => Rank(comm, cancellationToken));
        return _result!;
    }

    private void Rank(Communicator comm, CancellationToken cancellationToken)
    {
        Search(comm, cancellationToken);
        comm.Barrier();
        if (comm.Rank == 0)
        {
            LayOutRows();
        }

        comm.Barrier();
        FillAndSortRows(comm);
        comm.Barrier();
        if (comm.Rank == 0)
        {
            cancellationToken.ThrowIfCancellationRequested();
            _clusters = ButinaClusters.Build(_degrees, _offsets, _neighbours);
            _statistics = new ButinaStatistics(points, _clusters, options.ExactStatisticsLimit);
            Report("clusters", 1, _clusters.Count, _clusters.Count);
        }

        comm.Barrier();
        _statistics.Compute(comm, cancellationToken);
        comm.Barrier();
        if (comm.Rank == 0)
        {
            _result = BuildResult();
            Report("done", 2, _clusters.Count, _result.MeanSimilarityToCentroid.Average());
        }
    }

    /// <summary>
    /// Every pair (a, b), a &lt; b in popcount order, inside a's popcount window: the triangle of the
    /// distance matrix the bound cannot exclude, cut into runs of equal candidate count per rank.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void Search(Communicator comm, CancellationToken cancellationToken)
    {
        var (start, end) = WorkSplit.Range(_searchWork, comm.Rank, comm.Size);
        var pairs = new List<int>();
        var order = _order.Order;
        var popCounts = _order.PopCounts;
        var packed = _order.Packed;
        var words = _order.Words;
        var reportEvery = Math.Max(1, (end - start) / 20);
        var common = new int[Count];
        for (var a = start; a < end; a++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var pa = popCounts[a];
            var minCommon = _order.MinCommon[pa];
            var first = a + 1;
            var run = common.AsSpan(0, _order.End[a] - first);
            Tanimoto.CommonBitsRun(packed.AsSpan(a * words, words), packed.AsSpan(first * words, run.Length * words), run);
            for (var t = 0; t < run.Length; t++)
            {
                // The same test as DistanceFromCounts(common, pa, pb) <= cutoff, as one integer compare.
                if (run[t] >= minCommon[popCounts[first + t] - pa])
                {
                    pairs.Add(order[a]);
                    pairs.Add(order[first + t]);
                    Interlocked.Increment(ref _degrees[order[a]]);
                    Interlocked.Increment(ref _degrees[order[first + t]]);
                }
            }

            if (comm.Rank == 0 && (a - start) % reportEvery == 0)
            {
                Report("neighbours", 0, 0, (double)(a - start) / (end - start));
            }
        }

        _pairs[comm.Rank] = pairs;
        _computed[comm.Rank] = _searchWork[end] - _searchWork[start];
    }

    private void LayOutRows()
    {
        _offsets = new int[Count + 1];
        for (var i = 0; i < Count; i++)
        {
            _offsets[i + 1] = checked(_offsets[i] + _degrees[i]);
        }

        _neighbours = new int[_offsets[Count]];
        _cursors = _offsets[..Count];
    }

    private void FillAndSortRows(Communicator comm)
    {
        var pairs = _pairs[comm.Rank];
        for (var p = 0; p < pairs.Count; p += 2)
        {
            var (i, j) = (pairs[p], pairs[p + 1]);
            _neighbours[Interlocked.Increment(ref _cursors[i]) - 1] = j;
            _neighbours[Interlocked.Increment(ref _cursors[j]) - 1] = i;
        }

        comm.Barrier();
        var first = (int)((long)Count * comm.Rank / comm.Size);
        var end = (int)((long)Count * (comm.Rank + 1) / comm.Size);
        for (var i = first; i < end; i++)
        {
            Array.Sort(_neighbours, _offsets[i], _offsets[i + 1] - _offsets[i]);
        }
    }

    private ButinaResult BuildResult()
    {
        var computed = 0L;
        foreach (var c in _computed)
        {
            computed += c;
        }

        return new ButinaResult
        {
            Cutoff = options.Cutoff,
            Clusters = _clusters.Count,
            Assignments = _clusters.Assignments,
            Centroids = _clusters.Centroids,
            Medoids = _statistics.Medoids,
            ClusterSizes = _clusters.Sizes,
            Members = _clusters.Members,
            MemberOffsets = _clusters.MemberOffsets,
            MeanSimilarityToCentroid = _statistics.MeanToCentroid,
            MeanPairwiseSimilarity = _statistics.MeanPairwise,
            NeighbourCounts = _degrees,
            NeighbourPairs = _offsets[Count] / 2,
            SimilaritiesComputed = computed,
            Elapsed = _clock.Elapsed,
        };
    }

    private void Report(string phase, int iteration, int clusters, double objective) =>
        progress?.TryWrite(new ClusteringProgress("butina", phase, iteration, null, clusters, objective, _clock.Elapsed));
}
