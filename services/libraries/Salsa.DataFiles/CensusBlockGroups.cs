
namespace Salsa.DataFiles;

/// <summary>One census block group's centre of population (2020 Census).</summary>
public sealed record CensusBlockGroup(string GeoId, string StateFips, string CountyFips, int Population, double Latitude, double Longitude)
{
    /// <summary>Five-digit county id (state + county FIPS).</summary>
    public string CountyId => GeoId[..5];
}

/// <summary>Reads the census block-group files of <c>data/census</c> and the Indiana fixture.</summary>
public static class CensusBlockGroups
{
    /// <summary>The columns every census file starts with.</summary>
    public static readonly IReadOnlyList<string> Columns = ["geoid", "state_fips", "county_fips", "population", "lat", "lon"];

    /// <summary>National file (below the data folder): 242,335 block groups.</summary>
    public const string NationalFile = "census/us_blockgroups_2020.csv.gz";

    /// <summary>Indiana file: 5,290 block groups.</summary>
    public const string IndianaFile = "census/indiana_blockgroups_2020.csv.gz";

    /// <summary>1,000 Indiana block groups for unit tests.</summary>
    public const string IndianaFixtureFile = "fixtures/indiana_bg_1000.csv";

    public static string NationalPath => DataDirectory.Default.PathOf(NationalFile);

    public static string IndianaPath => DataDirectory.Default.PathOf(IndianaFile);

    public static string IndianaFixturePath => DataDirectory.Default.PathOf(IndianaFixtureFile);

    public static List<CensusBlockGroup> ReadFile(string path)
    {
        using var stream = CsvLines.Open(path);
        return Read(stream, Path.GetFileName(path)).ToList();
    }

    public static IEnumerable<CensusBlockGroup> Read(Stream stream, string sourceName)
    {
        foreach (var (line, f) in CsvLines.Read(stream, Columns, sourceName))
        {
            var geoId = f[0];
            if (geoId.Length != 12 || f[1].Length != 2 || f[2].Length != 3 || !geoId.StartsWith(f[1] + f[2], StringComparison.Ordinal))
            {
                throw new InvalidDataException($"{sourceName} line {line}: geoid '{geoId}' does not agree with state '{f[1]}' and county '{f[2]}'.");
            }

            var population = CsvLines.ParseInt(f[3], line, "population", sourceName);
            if (population < 0)
            {
                throw new InvalidDataException($"{sourceName} line {line}: population {population} is negative.");
            }

            var lat = CsvLines.ParseDouble(f[4], line, "lat", sourceName);
            var lon = CsvLines.ParseDouble(f[5], line, "lon", sourceName);
            if (lat is < -90 or > 90 || lon is < -180 or > 180)
            {
                throw new InvalidDataException($"{sourceName} line {line}: ({lat}, {lon}) is not a latitude/longitude.");
            }

            yield return new CensusBlockGroup(geoId, f[1], f[2], population, lat, lon);
        }
    }
}
