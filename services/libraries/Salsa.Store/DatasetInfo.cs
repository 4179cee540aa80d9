namespace Salsa.Store;

/// <summary>A dataset's description (everything but its points).</summary>
public sealed record DatasetInfo
{
    public required Guid Id { get; init; }

    public required string Name { get; init; }

    public required DatasetKind Kind { get; init; }

    public required int Count { get; init; }

    /// <summary>Coordinates per point (Dense, Census); 0 otherwise.</summary>
    public int Dimension { get; init; }

    /// <summary>Bits per point (Binary); 0 otherwise.</summary>
    public int Bits { get; init; }

    /// <summary>Named fingerprint type of a Binary dataset, e.g. <c>rdkit-ecfp4-1024</c>.</summary>
    public string? FingerprintType { get; init; }

    public double TotalWeight { get; init; }

    public required DateTimeOffset Created { get; init; }

    /// <summary>Where it came from: a file, an upload, a query of another dataset.</summary>
    public string Source { get; init; } = "";

    public IReadOnlyDictionary<string, string> Metadata { get; init; } = new Dictionary<string, string>();

    /// <summary>The tenant that owns it (<see cref="Tenants"/>).</summary>
    public string Tenant { get; init; } = Tenants.Local;

    /// <summary>
    /// Bytes of its points as stored and counted by <see cref="StorageQuota"/>: vectors, 8 per
    /// weight, labels and texts in UTF-8. Set by the store; what a caller gives is ignored.
    /// </summary>
    public long Bytes { get; init; }

    /// <summary>
    /// The SHA-256 of its content, whatever parts it arrived in (<see cref="DatasetDigest"/>): 64
    /// lower-case hex digits. Set by the store; null for a dataset stored before digests were kept.
    /// </summary>
    public string? Sha256 { get; init; }
}

/// <summary>What a dataset holds.</summary>
public enum DatasetKind
{
    /// <summary>Points in R^d (<see cref="DatasetContent.Values"/>, row-major), with weights.</summary>
    Dense = 1,

    /// <summary>Bit vectors (<see cref="DatasetContent.Words"/>, little-endian 64-bit words), with weights.</summary>
    Binary = 2,

    /// <summary>Census block groups: Values = (latitude, longitude) pairs, Weights = population, Labels = GEOIDs.</summary>
    Census = 3,

    /// <summary>Compounds: Labels = ids, Texts = SMILES; fingerprints live in derived Binary datasets.</summary>
    Compounds = 4,
}

/// <summary>A dataset's points. Arrays are as described by <see cref="DatasetKind"/>; unused ones are null.</summary>
public sealed record DatasetContent
{
    public double[]? Values { get; init; }

    public ulong[]? Words { get; init; }

    /// <summary>One weight per point (required, may be all 1).</summary>
    public required double[] Weights { get; init; }

    /// <summary>One label per point (ids), or null.</summary>
    public string[]? Labels { get; init; }

    /// <summary>One text per point (e.g. SMILES), or null.</summary>
    public string[]? Texts { get; init; }
}
