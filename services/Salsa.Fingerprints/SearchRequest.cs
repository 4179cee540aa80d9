using System.ComponentModel.DataAnnotations;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;

namespace Salsa.Fingerprints;

/// <summary>An exact top-k Tanimoto search of a fingerprint dataset.</summary>
public sealed record FingerprintSearchRequest
{
    /// <summary>The binary dataset to search.</summary>
    public required Guid DatasetId { get; init; }

    /// <summary>A succeeded Butina job on that dataset whose clusters prune the search; without one every compound is compared.</summary>
    public Guid? ButinaJobId { get; init; }

    /// <summary>The query in the data files' hex encoding (byte i/8 holds bit i, least significant first).</summary>
    public string? QueryHex { get; init; }

    /// <summary>The query as little-endian 64-bit words (instead of <see cref="QueryHex"/>).</summary>
    public IReadOnlyList<ulong>? QueryWords { get; init; }

    /// <summary>The query as a molecule (instead of a fingerprint): RDKit fingerprints it as the dataset's fingerprints were.</summary>
    public string? QuerySmiles { get; init; }

    /// <summary>The query's fingerprint type: it must be the dataset's (e.g. <c>rdkit-ecfp4-1024</c>).</summary>
    public string? FingerprintType { get; init; }

    /// <summary>Hits wanted, best first.</summary>
    [Range(1, int.MaxValue)]
    public required int K { get; init; }

    public static FingerprintSearchRequest From(Contracts.Fingerprints.SearchRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        return new FingerprintSearchRequest
        {
            DatasetId = DatasetCatalog.ParseId(request.DatasetId),
            ButinaJobId = string.IsNullOrEmpty(request.ButinaJobId) ? null : JobViews.ParseId(request.ButinaJobId, "Butina job id"),
            QueryHex = string.IsNullOrEmpty(request.QueryHex) ? null : request.QueryHex,
            QueryWords = request.QueryWords.Count == 0 ? null : [.. request.QueryWords],
            QuerySmiles = string.IsNullOrEmpty(request.QuerySmiles) ? null : request.QuerySmiles,
            FingerprintType = string.IsNullOrEmpty(request.FingerprintType) ? null : request.FingerprintType,
            K = request.K,
        };
    }
}

/// <summary>One compound found: its index in the dataset, its label (compound id), its Tanimoto similarity to the query, and its SMILES when the fingerprints' compounds are stored.</summary>
public sealed record SearchHit(int Index, string Label, double Similarity, string? Smiles = null);

/// <summary>The hits, best first (equal similarities by index), and the Tanimoto evaluations the search made.</summary>
public sealed record FingerprintSearchResult(IReadOnlyList<SearchHit> Hits, long DistancesComputed)
{
    public Contracts.Fingerprints.SearchResponse ToProto()
    {
        var proto = new Contracts.Fingerprints.SearchResponse { DistancesComputed = DistancesComputed };
        proto.Hits.Add(Hits.Select(h => new Contracts.Fingerprints.SearchHit { Index = h.Index, Label = h.Label, Similarity = h.Similarity, Smiles = h.Smiles ?? "" }));
        return proto;
    }
}
