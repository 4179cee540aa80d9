using Salsa.DataFiles;

namespace Salsa.Chemistry;

/// <summary>Fingerprints of a list of SMILES: packed words per type (zero where a molecule failed) and the failures' reasons.</summary>
public sealed class MoleculeFingerprints(IReadOnlyDictionary<FingerprintType, ulong[]> words, string?[] errors)
{
    /// <summary>Per asked type: <see cref="FingerprintType.Words"/> words per molecule, in input order.</summary>
    public IReadOnlyDictionary<FingerprintType, ulong[]> Words { get; } = words;

    /// <summary>Per molecule: null, or why RDKit could not read it.</summary>
    public IReadOnlyList<string?> Errors { get; } = errors;

    public int Count => Errors.Count;

    public ReadOnlySpan<ulong> Fingerprint(FingerprintType type, int molecule) => Words[type].AsSpan(molecule * type.Words, type.Words);
}
