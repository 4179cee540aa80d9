using System.Globalization;
using System.IO.Compression;
using Salsa.DataFiles;

namespace Salsa.Services.Tests.Census;

/// <summary>A block group as the test reads it from the census file, without the service's reader.</summary>
public sealed record BlockGroupRow(string GeoId, long Population, double Latitude, double Longitude)
{
    public string State => GeoId[..2];

    public string County => GeoId[..5];
}

/// <summary>
/// Indiana's 5,290 block groups read straight from <c>census/indiana_blockgroups_2020.csv.gz</c>,
/// so the tests' expected counts and populations do not come from the code under test.
/// </summary>
public static class IndianaBlockGroups
{
    private static readonly Lazy<IReadOnlyList<BlockGroupRow>> s_rows = new(Read);

    public static IReadOnlyList<BlockGroupRow> All => s_rows.Value;

    /// <summary>Great-circle distance in km (haversine on the mean Earth radius).</summary>
    public static double GreatCircleKm(BlockGroupRow a, BlockGroupRow b)
    {
        static double Radians(double degrees) => degrees * Math.PI / 180;
        var dLat = Radians(b.Latitude - a.Latitude);
        var dLon = Radians(b.Longitude - a.Longitude);
        var h = Math.Pow(Math.Sin(dLat / 2), 2) + Math.Cos(Radians(a.Latitude)) * Math.Cos(Radians(b.Latitude)) * Math.Pow(Math.Sin(dLon / 2), 2);
        return 2 * 6371.0088 * Math.Asin(Math.Sqrt(h));
    }

    private static List<BlockGroupRow> Read()
    {
        using var file = File.OpenRead(DataDirectory.Default.PathOf("census", "indiana_blockgroups_2020.csv.gz"));
        using var gzip = new GZipStream(file, CompressionMode.Decompress);
        using var reader = new StreamReader(gzip);
        var header = reader.ReadLine()!.Split(',');
        var (geoId, population, latitude, longitude) = (Array.IndexOf(header, "geoid"), Array.IndexOf(header, "population"), Array.IndexOf(header, "lat"), Array.IndexOf(header, "lon"));
        var rows = new List<BlockGroupRow>();
        while (reader.ReadLine() is { Length: > 0 } line)
        {
            var f = line.Split(',');
            rows.Add(new BlockGroupRow(
                f[geoId],
                long.Parse(f[population], CultureInfo.InvariantCulture),
                double.Parse(f[latitude], CultureInfo.InvariantCulture),
                double.Parse(f[longitude], CultureInfo.InvariantCulture)));
        }

        return rows;
    }
}
