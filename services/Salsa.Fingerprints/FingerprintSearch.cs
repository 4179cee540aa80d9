using System.Globalization;
using Microsoft.Extensions.Options;
using Salsa.Chemistry;
using Salsa.Clustering;
using Salsa.Clustering.Fingerprints;
using Salsa.Hosting.Clustering.Grid;
using Salsa.Hosting.Datasets;
using Salsa.Store;
using LimitExceededException = Salsa.Hosting.Errors.LimitExceededException; // not Orleans.Runtime's (Orleans' implicit usings come with the cluster)

namespace Salsa.Fingerprints;

/// <summary>
/// Exact top-k Tanimoto search, shared by the REST and gRPC faces: the request is checked against the
/// dataset (binary, same fingerprint type, same length) and the limits, the dataset's index is taken
/// from the cache or built, and the search runs on the search dispatcher — pruned through a Butina
/// job's clusters when one is named, otherwise comparing every compound — on the dataset's
/// partitions across the grid when the service computes there (<c>Cluster:Enabled</c>), with the
/// same hits.
/// </summary>
public sealed class FingerprintSearch(DatasetCatalog datasets, ButinaJobs butina, SearchIndexCache cache, SearchDispatcher dispatcher, IOptions<FingerprintsOptions> options, Rdkit rdkit, GridCompute? grid = null)
{
    public async Task<FingerprintSearchResult> SearchAsync(FingerprintSearchRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        CheckK(request.K);
        var info = await datasets.GetRequiredAsync(request.DatasetId, cancellationToken);
        FingerprintDatasets.RequireBinary(info);
        var query = await FingerprintQuery.ParseAsync(request, info, rdkit, cancellationToken);
        if (request.K > info.Count)
        {
            throw new ArgumentException($"k is {request.K}; dataset {info.Id} has only {info.Count} compounds.");
        }

        if (request.ButinaJobId is { } jobId)
        {
            await butina.RequireSearchableAsync(jobId, info, cancellationToken);
        }

        if (grid is not null && request.ButinaJobId is null)
        {
            // A brute-force search compares every compound: the partitions do so where they are.
            var found = await grid.SearchAsync(info.Id, info.Count, query, request.K, cancellationToken);
            var smiles = await CompoundSmilesAsync(info, cancellationToken);
            return new FingerprintSearchResult(
                [.. found.Answer.Hits.Select(h => new SearchHit(h.Compound, found.Labels.GetValueOrDefault(h.Compound, ""), h.Similarity, smiles?[h.Compound]))], found.Answer.DistancesComputed);
        }

        var set = await cache.GetOrBuildAsync(info.Id, request.ButinaJobId, () => BuildAsync(info, request.ButinaJobId), cancellationToken);
        var result = await dispatcher.RunAsync(
            () => request.ButinaJobId is null ? set.Index.SearchBruteForce(query, request.K) : set.Index.Search(query, request.K), cancellationToken);
        return new FingerprintSearchResult([.. result.Hits.Select(h => new SearchHit(h.Compound, set.LabelOf(h.Compound), h.Similarity, set.SmilesOf(h.Compound)))], result.DistancesComputed);
    }

    /// <summary>
    /// The SMILES of the fingerprints' compounds, when they were made from a compounds dataset that
    /// is still stored (the chem service names it in their metadata; its compounds are in the same
    /// order); null otherwise. Read once per cached index, and per search on the grid's path.
    /// </summary>
    private async Task<string[]?> CompoundSmilesAsync(DatasetInfo info, CancellationToken cancellationToken)
    {
        if (!info.Metadata.TryGetValue("compounds_dataset", out var text) || !Guid.TryParse(text, out var compoundsId)
            || await datasets.GetAsync(compoundsId, cancellationToken) is not { Kind: DatasetKind.Compounds } compounds || compounds.Count != info.Count)
        {
            return null;
        }

        var (_, content) = await datasets.ReadRequiredAsync(compoundsId, cancellationToken);
        return content.Texts;
    }

    private void CheckK(int k)
    {
        if (k < 1)
        {
            throw new ArgumentException($"k must be at least 1; it is {k}.");
        }

        if (k > options.Value.MaxSearchK)
        {
            throw new LimitExceededException(string.Create(CultureInfo.InvariantCulture,
                $"k = {k:N0} exceeds this service's limit of {options.Value.MaxSearchK:N0} hits (Salsa:Fingerprints:MaxSearchK)."));
        }
    }

    /// <summary>
    /// The dataset's index: over the Butina job's clusters, or over one cluster holding everything
    /// (a brute-force search needs no pruning, only the index's packed prints). Shared by every
    /// caller, so it is not cancelled with the first one.
    /// </summary>
    private async Task<SearchableSet> BuildAsync(DatasetInfo info, Guid? butinaJobId)
    {
        var (_, content) = await datasets.ReadRequiredAsync(info.Id, CancellationToken.None);
        var smiles = await CompoundSmilesAsync(info, CancellationToken.None);
        var clustering = butinaJobId is { } id ? await butina.ReadClusteringAsync(id, CancellationToken.None) : null;
        return await dispatcher.RunAsync(() =>
        {
            var points = new BinaryVectors(content.Words!, info.Bits, content.Weights);
            var index = clustering is null
                ? SimilarityIndex.Build(points, new int[points.Count], [0])
                : SimilarityIndex.Build(points, clustering.Assignments, clustering.Centroids);
            return new SearchableSet(index, content.Labels, smiles);
        }, CancellationToken.None);
    }
}
