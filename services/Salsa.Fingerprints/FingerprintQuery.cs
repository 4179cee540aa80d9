using Salsa.Chemistry;
using Salsa.DataFiles;
using Salsa.Hosting.Datasets;
using Salsa.Store;
using LimitExceededException = Salsa.Hosting.Errors.LimitExceededException; // not Orleans.Runtime's

namespace Salsa.Fingerprints;

/// <summary>A search's query checked against the dataset it searches: the same fingerprint type, the same length.</summary>
public static class FingerprintQuery
{
    /// <summary>
    /// The query as packed words, or a clear <see cref="ArgumentException"/> naming what does not
    /// fit. A SMILES is fingerprinted by <paramref name="rdkit"/> as the dataset's fingerprints were
    /// (RDKit's ECFP4 or MACCS), so the molecule itself, when it is in the dataset, is found at similarity 1.
    /// </summary>
    public static async Task<ulong[]> ParseAsync(FingerprintSearchRequest request, DatasetInfo dataset, Rdkit rdkit, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        ArgumentNullException.ThrowIfNull(dataset);
        ArgumentNullException.ThrowIfNull(rdkit);
        var given = new[] { request.QueryHex is not null, request.QueryWords is not null, request.QuerySmiles is not null }.Count(g => g);
        if (given != 1)
        {
            throw new ArgumentException(given == 0
                ? "The search has no query: give querySmiles, queryHex or queryWords."
                : "The search has more than one query: give one of querySmiles, queryHex or queryWords.");
        }

        if (request.QuerySmiles is { } smiles)
        {
            return await FromSmilesAsync(smiles, request.FingerprintType, dataset, rdkit, cancellationToken);
        }

        RequireSameType(request.FingerprintType, dataset);
        var type = new FingerprintType(FingerprintDatasets.TypeName(dataset.FingerprintType), dataset.Bits, "query");
        return request.QueryHex is { } hex ? FromHex(hex, type) : FromWords(request.QueryWords!, type);
    }

    private static async Task<ulong[]> FromSmilesAsync(string smiles, string? queryType, DatasetInfo dataset, Rdkit rdkit, CancellationToken cancellationToken)
    {
        var type = Rdkit.Types.FirstOrDefault(t => string.Equals(t.Name, dataset.FingerprintType, StringComparison.OrdinalIgnoreCase) && t.Bits == dataset.Bits)
            ?? throw new ArgumentException(
                $"Dataset {dataset.Id} holds {FingerprintDatasets.TypeName(dataset.FingerprintType)} fingerprints; a SMILES query is fingerprinted by RDKit as {string.Join(" or ", Rdkit.Types.Select(t => t.Name))} only: search with queryHex instead.");
        if (!string.IsNullOrEmpty(queryType))
        {
            RequireSameType(queryType, dataset);
        }

        // The query's bits must be the release's that made the dataset's: another release's differ
        // for some molecules, and a search would quietly miss them.
        var release = await rdkit.FingerprintsVersionAsync(cancellationToken);
        if (dataset.Metadata.TryGetValue(DatasetMetadataKeys.RdkitVersion, out var made) && made != release)
        {
            throw new ArgumentException(
                $"Dataset {dataset.Id} holds fingerprints made by RDKit {made}; this service fingerprints with RDKit {release}, whose bits differ for some molecules: " +
                $"a SMILES query is not fingerprinted by a release other than the dataset's. Search with queryHex made by RDKit {made}, or import the compounds again with this service.");
        }

        MoleculeFingerprints computed;
        try
        {
            computed = await rdkit.FingerprintsAsync([smiles], [type], cancellationToken: cancellationToken);
        }
        catch (TimeoutException over)
        {
            throw new LimitExceededException($"The query SMILES: {over.Message}");
        }
        return computed.Errors[0] is { } reason
            ? throw new ArgumentException($"RDKit cannot read the query SMILES '{(smiles.Length <= 80 ? smiles : smiles[..77] + "...")}': {reason}")
            : computed.Fingerprint(type, 0).ToArray();
    }

    private static void RequireSameType(string? queryType, DatasetInfo dataset)
    {
        var datasetType = dataset.FingerprintType;
        if (string.IsNullOrEmpty(queryType) && !string.IsNullOrEmpty(datasetType))
        {
            throw new ArgumentException($"The query names no fingerprint type; dataset {dataset.Id} holds {datasetType} fingerprints: set fingerprintType to {datasetType}.");
        }

        if (!string.Equals(queryType ?? "", datasetType ?? "", StringComparison.OrdinalIgnoreCase))
        {
            throw new ArgumentException(
                $"The query is a {FingerprintDatasets.TypeName(queryType)} fingerprint but dataset {dataset.Id} holds {FingerprintDatasets.TypeName(datasetType)} fingerprints; " +
                "a query must use the fingerprint type of the dataset it searches.");
        }
    }

    private static ulong[] FromHex(string hex, FingerprintType type)
    {
        if (hex.Length != type.HexLength)
        {
            throw new ArgumentException($"queryHex has {hex.Length} characters; a {type.Bits}-bit {type.Name} fingerprint is {type.HexLength} hex digits.");
        }

        if (!hex.All(char.IsAsciiHexDigit))
        {
            throw new ArgumentException("queryHex holds characters that are not hex digits (0-9, a-f).");
        }

        var words = new ulong[type.Words];
        CompoundSet.ParseHex(hex, type, words, 1, "queryHex");
        return words;
    }

    private static ulong[] FromWords(IReadOnlyList<ulong> words, FingerprintType type) =>
        words.Count == type.Words
            ? [.. words]
            : throw new ArgumentException($"queryWords has {words.Count} 64-bit words; a {type.Bits}-bit {type.Name} fingerprint is {type.Words}.");
}
