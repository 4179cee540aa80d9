namespace Salsa.DataFiles;

/// <summary>A named binary fingerprint: how many bits and which column of the compound files holds it.</summary>
public sealed record FingerprintType(string Name, int Bits, string Column)
{
    /// <summary>RDKit Morgan radius 2, 1024 bits (ECFP4).</summary>
    public static readonly FingerprintType Ecfp4 = new("rdkit-ecfp4-1024", 1024, "ecfp4_1024_hex");

    /// <summary>RDKit MACCS keys, 167 bits (bit 0 unused).</summary>
    public static readonly FingerprintType Maccs = new("rdkit-maccs-167", 167, "maccs_167_hex");

    /// <summary>The fingerprint types shipped with the data sets.</summary>
    public static IReadOnlyList<FingerprintType> Shipped { get; } = [Ecfp4, Maccs];

    /// <summary>64-bit words needed per fingerprint.</summary>
    public int Words => (Bits + 63) / 64;

    /// <summary>Hex characters in the files' encoding (whole bytes).</summary>
    public int HexLength => (Bits + 7) / 8 * 2;

    public static FingerprintType? Find(string name) =>
        Shipped.FirstOrDefault(t => string.Equals(t.Name, name, StringComparison.OrdinalIgnoreCase));
}
