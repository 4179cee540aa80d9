using Salsa.Clustering.Fingerprints;

namespace Salsa.Grid.Partitions;

/// <summary>A similarity search answered by a fingerprint dataset's partitions: its hits with their labels, and the silos that answered.</summary>
public sealed record PartitionSearchResult(SimilaritySearchResult Answer, IReadOnlyDictionary<int, string> Labels, IReadOnlyList<string> Silos);

/// <summary>
/// Exact top-k similarity search fanned out over a fingerprint dataset's partition grid: every
/// partition answers the query over its rows on its silo's cores, and the k best of their answers
/// (<see cref="SimilarityIndex.Merge"/>) are the brute-force answer over the whole set, hit for hit.
/// A partition whose silo is lost is asked again while the cluster moves it.
/// </summary>
public static class PartitionSearch
{
    public static async Task<PartitionSearchResult> SearchAsync(
        IGrainFactory grains, Guid datasetId, int points, int partitions, ulong[] query, int k, TimeSpan retryFor, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(grains);
        ArgumentNullException.ThrowIfNull(query);
        var keys = PartitionKey.Grid(datasetId, partitions).ToArray();
        var refs = keys.Select(key => grains.GetGrain<IPartitionGrain>(key.ToGrainKey())).ToArray();
        var (answers, _) = await GrainPartitions.FanAsync(refs, g => g.SearchAsync(query, k), retryFor, Timeout.InfiniteTimeSpan, cancellationToken).ConfigureAwait(false);

        var parts = answers.Select((a, p) => (Answer: new SimilaritySearchResult
        {
            Hits = [.. a.Compounds.Select((compound, h) => new SimilarityHit(compound, a.Similarities[h], a.Distances[h]))],
            DistancesComputed = a.Computed,
            ClustersVisited = 0,
            ClustersSkipped = 0,
            MembersSkipped = 0,
        }, Offset: keys[p].Rows(points).Start)).ToArray();
        var merged = SimilarityIndex.Merge(parts, k);
        var labels = new Dictionary<int, string>();
        for (var p = 0; p < answers.Length; p++)
        {
            if (answers[p].Labels is { } partLabels)
            {
                for (var h = 0; h < partLabels.Length; h++)
                {
                    labels[parts[p].Offset + answers[p].Compounds[h]] = partLabels[h];
                }
            }
        }

        return new PartitionSearchResult(merged, labels, [.. answers.Select(a => a.Silo).Distinct(StringComparer.Ordinal).Order(StringComparer.Ordinal)]);
    }
}
