using System.Buffers;
using System.Buffers.Binary;

namespace Salsa.DataFiles;

/// <summary>
/// Compounds with their SMILES and packed fingerprints. Fingerprints are stored contiguously, one
/// fixed-width run of little-endian 64-bit words per compound, so bit <c>i</c> of compound <c>c</c>
/// is bit <c>i % 64</c> of word <c>c·Words + i / 64</c> — the files' LSB-first byte order read as words.
/// </summary>
public sealed class CompoundSet
{
    public CompoundSet(IReadOnlyList<string> ids, IReadOnlyList<string> smiles, IReadOnlyDictionary<FingerprintType, ulong[]> fingerprints)
    {
        if (ids.Count != smiles.Count)
        {
            throw new ArgumentException("Every compound needs one id and one SMILES string.", nameof(smiles));
        }

        foreach (var (type, words) in fingerprints)
        {
            if (words.Length != ids.Count * type.Words)
            {
                throw new ArgumentException($"Fingerprint '{type.Name}' has {words.Length} words; {ids.Count} compounds need {ids.Count * type.Words}.", nameof(fingerprints));
            }
        }

        Ids = ids;
        Smiles = smiles;
        Fingerprints = fingerprints;
    }

    public int Count => Ids.Count;

    public IReadOnlyList<string> Ids { get; }

    public IReadOnlyList<string> Smiles { get; }

    public IReadOnlyDictionary<FingerprintType, ulong[]> Fingerprints { get; }

    /// <summary>Compounds in the files' column order.</summary>
    public static readonly IReadOnlyList<string> Columns = ["id", "smiles", FingerprintType.Ecfp4.Column, FingerprintType.Maccs.Column];

    /// <summary>All 176,074 compounds (below the data folder).</summary>
    public const string AllFile = "chem/compounds_all.csv.gz";

    /// <summary>The deterministic 40,000-compound subset.</summary>
    public const string Subset40kFile = "chem/compounds_40k.csv.gz";

    /// <summary>The first 500 compounds of the 40k subset, for unit tests.</summary>
    public const string FixtureFile = "fixtures/chem_500.csv";

    public static string AllPath => DataDirectory.Default.PathOf(AllFile);

    public static string Subset40kPath => DataDirectory.Default.PathOf(Subset40kFile);

    public static string FixturePath => DataDirectory.Default.PathOf(FixtureFile);

    public ReadOnlySpan<ulong> Fingerprint(FingerprintType type, int compound) =>
        Fingerprints[type].AsSpan(compound * type.Words, type.Words);

    /// <summary>The first <paramref name="count"/> compounds (all of them when there are no more).</summary>
    public CompoundSet Take(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        if (count >= Count)
        {
            return this;
        }

        return new CompoundSet(
            [.. Ids.Take(count)],
            [.. Smiles.Take(count)],
            Fingerprints.ToDictionary(f => f.Key, f => f.Value[..(count * f.Key.Words)]));
    }

    public static CompoundSet ReadFile(string path, int maxCompounds = int.MaxValue)
    {
        using var stream = CsvLines.Open(path);
        return Read(stream, Path.GetFileName(path), maxCompounds);
    }

    public static CompoundSet Read(Stream stream, string sourceName, int maxCompounds = int.MaxValue)
    {
        var ids = new List<string>();
        var smiles = new List<string>();
        var ecfp = new List<ulong>();
        var maccs = new List<ulong>();
        Span<ulong> buffer = stackalloc ulong[FingerprintType.Ecfp4.Words];
        foreach (var (line, f) in CsvLines.Read(stream, Columns, sourceName))
        {
            if (ids.Count >= maxCompounds)
            {
                break;
            }

            ids.Add(f[0]);
            smiles.Add(f[1]);
            ParseHex(f[2], FingerprintType.Ecfp4, buffer, line, sourceName);
            ecfp.AddRange(buffer[..FingerprintType.Ecfp4.Words]);
            ParseHex(f[3], FingerprintType.Maccs, buffer, line, sourceName);
            maccs.AddRange(buffer[..FingerprintType.Maccs.Words]);
        }

        return new CompoundSet(ids, smiles, new Dictionary<FingerprintType, ulong[]>
        {
            [FingerprintType.Ecfp4] = [.. ecfp],
            [FingerprintType.Maccs] = [.. maccs],
        });
    }

    /// <summary>
    /// Parses the files' hex encoding (byte <c>i/8</c> holds bit <c>i</c> at position <c>i % 8</c>
    /// from the least-significant bit) into little-endian words.
    /// </summary>
    public static void ParseHex(ReadOnlySpan<char> hex, FingerprintType type, Span<ulong> destination, int line = 0, string source = "fingerprint")
    {
        if (hex.Length != type.HexLength)
        {
            throw new InvalidDataException($"{source} line {line}: {type.Name} has {hex.Length} hex characters, expected {type.HexLength}.");
        }

        Span<byte> bytes = stackalloc byte[type.Words * 8];
        bytes.Clear();
        var status = Convert.FromHexString(hex, bytes, out _, out var written);
        if (status != OperationStatus.Done || written != type.HexLength / 2)
        {
            throw new InvalidDataException($"{source} line {line}: {type.Name} is not valid hex.");
        }

        for (var w = 0; w < type.Words; w++)
        {
            destination[w] = BinaryPrimitives.ReadUInt64LittleEndian(bytes.Slice(w * 8, 8));
        }

        var tailBits = type.Bits % 64;
        if (tailBits != 0 && (destination[type.Words - 1] >> tailBits) != 0)
        {
            throw new InvalidDataException($"{source} line {line}: {type.Name} sets bits beyond bit {type.Bits - 1}.");
        }
    }

    /// <summary>Formats packed words back into the files' hex encoding.</summary>
    public static string FormatHex(ReadOnlySpan<ulong> words, FingerprintType type)
    {
        Span<byte> bytes = stackalloc byte[type.Words * 8];
        for (var w = 0; w < type.Words; w++)
        {
            BinaryPrimitives.WriteUInt64LittleEndian(bytes.Slice(w * 8, 8), words[w]);
        }

        return Convert.ToHexStringLower(bytes[..(type.HexLength / 2)]);
    }
}
