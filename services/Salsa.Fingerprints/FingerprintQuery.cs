using Salsa.Datasets;
using Salsa.Store;

namespace Salsa.Fingerprints;

/// <summary>A search's query checked against the dataset it searches: the same fingerprint type, the same length.</summary>
public static class FingerprintQuery
{
    /// <summary>The query as packed words, or a clear <see cref="ArgumentException"/> naming what does not fit.</summary>
    public static ulong[] Parse(FingerprintSearchRequest request, DatasetInfo dataset)
    {
        ArgumentNullException.ThrowIfNull(request);
        ArgumentNullException.ThrowIfNull(dataset);
        RequireSameType(request.FingerprintType, dataset);
        var type = new FingerprintType(FingerprintDatasets.TypeName(dataset.FingerprintType), dataset.Bits, "query");
        return (request.QueryHex, request.QueryWords) switch
        {
            (null, null) => throw new ArgumentException("The search has no query: give queryHex or queryWords."),
            ({ }, { }) => throw new ArgumentException("The search has two queries: give queryHex or queryWords, not both."),
            ({ } hex, null) => FromHex(hex, type),
            (null, { } words) => FromWords(words, type),
        };
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
