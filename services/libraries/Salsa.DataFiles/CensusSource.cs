namespace Salsa.DataFiles;

/// <summary>A census file the service can import: <paramref name="File"/> is its path below the data folder.</summary>
public sealed record CensusSource(string Name, string Description, string File)
{
    /// <summary>The census files shipped in data/, by the names an import gives.</summary>
    public static IReadOnlyList<CensusSource> Shipped { get; } =
    [
        new("us", "All 242,335 block groups of the 50 states, DC and Puerto Rico", CensusBlockGroups.NationalFile),
        new("indiana", "Indiana's 5,290 block groups", CensusBlockGroups.IndianaFile),
        new("indiana-1000", "1,000 Indiana block groups (the test fixture)", CensusBlockGroups.IndianaFixtureFile),
    ];
}
