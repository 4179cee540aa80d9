namespace Salsa.DataFiles;

/// <summary>A compound file the service can import: <paramref name="File"/> is its path below the data folder.</summary>
public sealed record CompoundSource(string Name, string Description, string File)
{
    /// <summary>The RDKit release that made the shipped files' fingerprints (data/README.md): its bits are theirs.</summary>
    public const string ShippedRdkitVersion = "2026.09.1";

    /// <summary>The compound files shipped in data/, by the names an import gives.</summary>
    public static IReadOnlyList<CompoundSource> Shipped { get; } =
    [
        new("40k", "40,000 compounds (a deterministic subset)", CompoundSet.Subset40kFile),
        new("all", "All 176,074 compounds", CompoundSet.AllFile),
        new("fixture", "500 compounds (the test fixture)", CompoundSet.FixtureFile),
    ];
}
