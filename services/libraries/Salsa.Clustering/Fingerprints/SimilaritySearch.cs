using System.Diagnostics;
using System.Threading.Channels;
using Salsa.Ccr;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Fingerprints;

/// <summary>
/// Batches of exact top-k searches on Salsa.Ccr ranks. Queries are independent and each is answered
/// whole by one rank, so the answers do not depend on the number of ranks.
/// </summary>
public static class SimilaritySearch
{
    public static SimilaritySearchBatchResult Run(SimilarityIndex index, BinaryVectors queries, SimilaritySearchOptions options, ChannelWriter<ClusteringProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(index);
        ArgumentNullException.ThrowIfNull(queries);
        ArgumentNullException.ThrowIfNull(options);
        options.Validate(index);
        if (queries.Bits != index.Bits)
        {
            throw new ClusteringInputException($"The queries are {queries.Bits}-bit fingerprints; the index holds {index.Bits}-bit fingerprints.", nameof(queries));
        }

        return new SearchBatch(index, queries, options, progress).Execute(cancellationToken);
    }

    public static Task<SimilaritySearchBatchResult> RunAsync(SimilarityIndex index, BinaryVectors queries, SimilaritySearchOptions options, ChannelWriter<ClusteringProgress>? progress = null, CancellationToken cancellationToken = default) =>
        ClusteringExecution.RunAsync(() => Run(index, queries, options, progress, cancellationToken), cancellationToken);

    // Design: ranks take contiguous runs of queries and write only their own queries' slots of the
    // shared result array; the index is immutable. Nothing is shared mutably and no rank waits on
    // another, so there is nothing to deadlock; Spmd.Run's completion publishes the slots.
    private sealed class SearchBatch(SimilarityIndex index, BinaryVectors queries, SimilaritySearchOptions options, ChannelWriter<ClusteringProgress>? progress)
    {
        private readonly Stopwatch _clock = Stopwatch.StartNew();
        private readonly SimilaritySearchResult[] _results = new SimilaritySearchResult[queries.Count];

        public SimilaritySearchBatchResult Execute(CancellationToken cancellationToken)
        {
            ClusteringExecution.Run(options.Parallel, cancellationToken, comm => Rank(comm, cancellationToken));
            var computed = 0L;
            foreach (var result in _results)
            {
                computed += result.DistancesComputed;
            }

            return new SimilaritySearchBatchResult { Results = _results, DistancesComputed = computed, Elapsed = _clock.Elapsed };
        }

        private void Rank(Communicator comm, CancellationToken cancellationToken)
        {
            var first = (int)((long)queries.Count * comm.Rank / comm.Size);
            var end = (int)((long)queries.Count * (comm.Rank + 1) / comm.Size);
            var reportEvery = Math.Max(1, (end - first) / 20);
            var computed = 0L;
            for (var q = first; q < end; q++)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var query = queries.Fingerprint(q);
                _results[q] = options.Method == SimilaritySearchMethod.Pruned
                    ? index.SearchPruned(query, queries.PopCount(q), options.K)
                    : index.SearchAll(query, queries.PopCount(q), options.K);
                computed += _results[q].DistancesComputed;
                if (comm.Rank == 0 && (q - first + 1) % reportEvery == 0)
                {
                    // Objective: the mean comparisons per query so far on rank 0, the pruning's yield.
                    var done = q - first + 1;
                    progress?.TryWrite(new ClusteringProgress("similarity-search", options.Method.ToString(), done, null, index.Clusters, (double)computed / done, _clock.Elapsed));
                }
            }
        }
    }
}
