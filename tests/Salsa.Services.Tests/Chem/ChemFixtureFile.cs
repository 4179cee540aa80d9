using Salsa.DataFiles;

namespace Salsa.Services.Tests.Chem;

/// <summary>A compound as the test reads it from <c>fixtures/chem_500.csv</c>: its id and its fingerprints' hex by type.</summary>
public sealed record CompoundRow(string Id, IReadOnlyDictionary<string, string> Hex);

/// <summary>The 500-compound fixture read by the test itself, and the data README's definition of a hex bit.</summary>
public static class ChemFixtureFile
{
    public const string Ecfp4 = "rdkit-ecfp4-1024";
    public const string Maccs = "rdkit-maccs-167";

    private static readonly Lazy<IReadOnlyList<CompoundRow>> s_rows = new(Read);

    public static IReadOnlyList<CompoundRow> All => s_rows.Value;

    /// <summary><c>bit_i = (int(h[2*(i//8) : 2*(i//8)+2], 16) &gt;&gt; (i % 8)) &amp; 1</c> (data/README.md).</summary>
    public static bool HexBit(string hex, int i) =>
        ((Convert.ToInt32(hex.Substring(2 * (i / 8), 2), 16) >> (i % 8)) & 1) == 1;

    private static List<CompoundRow> Read()
    {
        var lines = File.ReadAllLines(DataDirectory.Default.PathOf("fixtures", "chem_500.csv"));
        var header = lines[0].Split(',');
        var (id, ecfp, maccs) = (Array.IndexOf(header, "id"), Array.IndexOf(header, "ecfp4_1024_hex"), Array.IndexOf(header, "maccs_167_hex"));
        return [.. lines.Skip(1).Where(l => l.Length > 0).Select(l => l.Split(',')).Select(f =>
            new CompoundRow(f[id], new Dictionary<string, string> { [Ecfp4] = f[ecfp], [Maccs] = f[maccs] }))];
    }
}
