using Salsa.Hosting.Datasets;
using Salsa.Store;

namespace Salsa.Fingerprints;

/// <summary>What this service asks of a dataset before it accepts work on it.</summary>
public static class FingerprintDatasets
{
    /// <summary>The dataset holds fingerprints (a binary dataset), or the request is refused.</summary>
    public static void RequireBinary(DatasetInfo info)
    {
        ArgumentNullException.ThrowIfNull(info);
        if (info.Kind != DatasetKind.Binary)
        {
            throw new ArgumentException(
                $"Dataset {info.Id} ({info.Name}) is {DatasetCatalog.KindName(info.Kind)}; the fingerprints service needs a binary (fingerprint) dataset.");
        }
    }

    /// <summary>The fingerprint type a dataset records, as messages name it.</summary>
    public static string TypeName(string? type) => string.IsNullOrEmpty(type) ? "untyped" : type;
}
