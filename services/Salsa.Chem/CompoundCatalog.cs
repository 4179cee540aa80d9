using System.Globalization;
using Salsa.Datasets;
using Salsa.Hosting;
using Salsa.Hosting.Datasets;
using Salsa.Store;

namespace Salsa.Chem;

/// <summary>A compound file the service can import: <paramref name="File"/> is its path below the data folder.</summary>
public sealed record CompoundSource(string Name, string Description, string File);

/// <summary>A fingerprint type this service can hand out, and where its bits come from.</summary>
public sealed record FingerprintTypeView(string Name, int Bits, string Description);

/// <summary>
/// Imports compound files: a compounds dataset (ids, SMILES) and, for every fingerprint type the
/// file ships, a binary dataset (labels = ids) tied to it through the compounds' metadata
/// (<c>fingerprints.&lt;type&gt;</c>). Imports are idempotent (content-derived ids).
/// </summary>
/// <remarks>
/// Fingerprints are the ones shipped with the data (RDKit ECFP4 1024-bit and MACCS 167-bit). The
/// plan to compute fingerprints from SMILES here (NCDK, including CDK's 881-bit PubChem one) waits
/// on NCDK, which this build's package source does not hold (docs/dependencies.md).
/// </remarks>
public sealed class CompoundCatalog(DatasetCatalog datasets, ServiceLimits limits, DataDirectory data)
{
    public const string FingerprintKeyPrefix = "fingerprints.";

    public static IReadOnlyList<CompoundSource> Sources { get; } =
    [
        new("40k", "40,000 compounds (a deterministic subset)", CompoundSet.Subset40kFile),
        new("all", "All 176,074 compounds", CompoundSet.AllFile),
        new("fixture", "500 compounds (the test fixture)", CompoundSet.FixtureFile),
    ];

    public static IReadOnlyList<FingerprintTypeView> Types { get; } =
    [
        new(FingerprintType.Ecfp4.Name, FingerprintType.Ecfp4.Bits, "RDKit Morgan radius 2 (ECFP4), folded to 1024 bits; shipped with the data"),
        new(FingerprintType.Maccs.Name, FingerprintType.Maccs.Bits, "RDKit MACCS keys, 167 bits; shipped with the data"),
    ];

    public async Task<DatasetInfo> ImportAsync(string? source, int limit, CancellationToken cancellationToken)
    {
        var file = Sources.FirstOrDefault(s => s.Name == source)
            ?? throw new ArgumentException($"Unknown compound source '{source}': use one of {string.Join(", ", Sources.Select(s => s.Name))}.");
        if (limit < 0)
        {
            throw new ArgumentException($"The limit must be 0 (all) or a positive number of compounds; it is {limit}.");
        }

        // Checked before anything is read; ids follow the file's content, so they are the same on every machine.
        var shipped = data.Check(file.File);
        var stamp = string.Join('|', file.Name, shipped.Entry.Sha256);
        Guid IdOf(int take) => DatasetIds.For("compounds", stamp, take.ToString(CultureInfo.InvariantCulture));
        if (await datasets.FindAsync(IdOf(limit), cancellationToken) is { } existing)
        {
            return existing;
        }

        // One compound past the limit tells whether the limit cut the file; a limit that does not is
        // the whole file, which is imported (or found) once, not again under another id.
        var set = CompoundSet.ReadFile(shipped.FullPath, limit == 0 ? int.MaxValue : (int)Math.Min(limit + 1L, int.MaxValue));
        if (limit != 0 && set.Count > limit)
        {
            set = set.Take(limit);
        }
        else if (limit != 0)
        {
            limit = 0;
            if (await datasets.FindAsync(IdOf(0), cancellationToken) is { } whole)
            {
                return whole;
            }
        }

        var compoundsId = IdOf(limit);
        limits.CheckPoints(set.Count, FingerprintType.Ecfp4.Bits);
        var name = limit == 0 ? $"compounds-{file.Name}" : $"compounds-{file.Name}-{limit}";
        var metadata = new Dictionary<string, string> { ["compound_source"] = file.Name };
        foreach (var (type, words) in set.Fingerprints)
        {
            var fingerprints = await datasets.GetOrCreateAsync(DatasetIds.For("fingerprints", compoundsId.ToString(), type.Name), () => (
                new DatasetInfo
                {
                    Id = Guid.Empty,
                    Name = $"{name}-{type.Name}",
                    Kind = DatasetKind.Binary,
                    Count = set.Count,
                    Bits = type.Bits,
                    FingerprintType = type.Name,
                    Created = DateTimeOffset.UtcNow,
                    Source = $"{type.Name} fingerprints shipped in {Path.GetFileName(file.File)}",
                    Metadata = new Dictionary<string, string> { ["compounds_dataset"] = compoundsId.ToString() },
                },
                new DatasetContent { Words = words, Weights = Ones(set.Count), Labels = [.. set.Ids] }), cancellationToken);
            metadata[FingerprintKeyPrefix + type.Name] = fingerprints.Id.ToString();
        }

        return await datasets.GetOrCreateAsync(compoundsId, () => (
            new DatasetInfo
            {
                Id = Guid.Empty,
                Name = name,
                Kind = DatasetKind.Compounds,
                Count = set.Count,
                Created = DateTimeOffset.UtcNow,
                Source = $"compound import: {Path.GetFileName(file.File)}",
                Metadata = metadata,
            },
            new DatasetContent { Weights = Ones(set.Count), Labels = [.. set.Ids], Texts = [.. set.Smiles] }), cancellationToken);
    }

    /// <summary>The binary dataset of <paramref name="type"/> fingerprints of an imported compound set.</summary>
    public async Task<DatasetInfo> FingerprintsAsync(Guid compoundsId, string? type, CancellationToken cancellationToken)
    {
        var compounds = await datasets.GetRequiredAsync(compoundsId, cancellationToken);
        if (compounds.Kind != DatasetKind.Compounds)
        {
            throw new ArgumentException($"Dataset {compounds.Id} is {DatasetCatalog.KindName(compounds.Kind)}; fingerprints come from a compounds dataset (an import).");
        }

        var available = compounds.Metadata.Keys.Where(k => k.StartsWith(FingerprintKeyPrefix, StringComparison.Ordinal)).Select(k => k[FingerprintKeyPrefix.Length..]).ToList();
        if (type is null || !compounds.Metadata.TryGetValue(FingerprintKeyPrefix + type, out var id))
        {
            throw new ArgumentException($"Fingerprint type '{type}' is not available for {compounds.Name}: it has {string.Join(", ", available)}.");
        }

        return await datasets.GetRequiredAsync(Guid.Parse(id), cancellationToken);
    }

    private static double[] Ones(int count) => Enumerable.Repeat(1.0, count).ToArray();
}
