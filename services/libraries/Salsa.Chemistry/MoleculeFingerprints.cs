using Salsa.DataFiles;

namespace Salsa.Chemistry;

/// <summary>Fingerprints of a list of SMILES: packed words per type (zero where a molecule failed), the failures' reasons, and the RDKit release that made them.</summary>
public sealed class MoleculeFingerprints(IReadOnlyDictionary<FingerprintType, ulong[]> words, string?[] errors, string rdkitVersion)
{
    /// <summary>Per asked type: <see cref="FingerprintType.Words"/> words per molecule, in input order.</summary>
    public IReadOnlyDictionary<FingerprintType, ulong[]> Words { get; } = words;

    /// <summary>Per molecule: null, or why RDKit could not read it.</summary>
    public IReadOnlyList<string?> Errors { get; } = errors;

    /// <summary>The RDKit release that made every fingerprint here (<c>2026.09.1</c>): one release per call, never two.</summary>
    public string RdkitVersion { get; } = rdkitVersion;

    public int Count => Errors.Count;

    public ReadOnlySpan<ulong> Fingerprint(FingerprintType type, int molecule) => Words[type].AsSpan(molecule * type.Words, type.Words);
}
