using System.Text;
using System.Text.Json;
using NetTopologySuite.Geometries;

namespace Salsa.Rendering.Maps;

/// <summary>
/// A clustering as an RFC 7946 GeoJSON FeatureCollection: one Feature per cluster, in cluster
/// order, with <c>"id"</c> the cluster index.
/// </summary>
/// <remarks>
/// <para>The geometry is the convex hull of the cluster's points: a Polygon with one closed,
/// counter-clockwise exterior ring; a LineString when its points are only two distinct positions
/// or all on one line (the hull then has no area); a Point when they are one position; and
/// null for a cluster without points. Positions are [longitude, latitude] (WGS84) rounded to 6
/// decimals (about 0.1 m).</para>
/// <para>The centre is a property (<c>centreLon</c>, <c>centreLat</c>) rather than a second
/// feature, so the collection has exactly one feature per cluster and a client never has to pair
/// features up. Properties: <c>cluster</c>, <c>population</c>, <c>pointCount</c>, <c>centreLon</c>,
/// <c>centreLat</c>, <c>color</c> (the map's colour, <c>#rrggbb</c>), and simplestyle's
/// <c>fill</c>, <c>fill-opacity</c> and <c>stroke</c>, which common viewers draw.</para>
/// <para>Longitudes are written as given; hulls across the antimeridian are not split (no census
/// point lies east of 180°W, so none arises from the census data).</para>
/// </remarks>
public static class ClusterGeoJson
{
    public const int Decimals = 6;

    public static string Write(ClusteredPoints data, bool indented = false)
    {
        using var buffer = new MemoryStream();
        Write(buffer, data, indented);
        return Encoding.UTF8.GetString(buffer.GetBuffer(), 0, (int)buffer.Length);
    }

    public static void Write(Stream stream, ClusteredPoints data, bool indented = false)
    {
        ArgumentNullException.ThrowIfNull(stream);
        ArgumentNullException.ThrowIfNull(data);
        var hulls = ClusterHulls.Compute(data);
        var colours = ClusterPalette.For(data);
        using var json = new Utf8JsonWriter(stream, new JsonWriterOptions { Indented = indented });
        json.WriteStartObject();
        json.WriteString("type", "FeatureCollection");
        json.WriteStartArray("features");
        for (var c = 0; c < data.ClusterCount; c++)
        {
            json.WriteStartObject();
            json.WriteString("type", "Feature");
            json.WriteNumber("id", c);
            json.WritePropertyName("geometry");
            WriteGeometry(json, hulls[c]);
            json.WriteStartObject("properties");
            json.WriteNumber("cluster", c);
            json.WriteNumber("population", data.ClusterPopulations[c]);
            json.WriteNumber("pointCount", data.ClusterPointCounts[c]);
            var centre = data.Centres.Geographic(c);
            json.WriteNumber("centreLon", Round(centre.Longitude));
            json.WriteNumber("centreLat", Round(centre.Latitude));
            var hex = colours[c].ToHex();
            json.WriteString("color", hex);
            json.WriteString("fill", hex);
            json.WriteNumber("fill-opacity", 0.2);
            json.WriteString("stroke", hex);
            json.WriteEndObject();
            json.WriteEndObject();
        }

        json.WriteEndArray();
        json.WriteEndObject();
    }

    private static double Round(double value) => Math.Round(value, Decimals, MidpointRounding.AwayFromZero);

    private static void WriteGeometry(Utf8JsonWriter json, Geometry? hull)
    {
        if (hull is null)
        {
            json.WriteNullValue();
            return;
        }

        // Rounding can merge neighbouring vertices: drop the repeats, and if too few are left
        // for an area, say what is left.
        var positions = new List<(double Lon, double Lat)>();
        foreach (var v in ClusterHulls.Vertices(hull))
        {
            var p = (Round(v.Longitude), Round(v.Latitude));
            if (positions.Count == 0 || positions[^1] != p)
            {
                positions.Add(p);
            }
        }

        if (hull is Polygon)
        {
            if (positions.Count > 1 && positions[0] == positions[^1])
            {
                positions.RemoveAt(positions.Count - 1);
            }

            if (positions.Count >= 3 && SignedArea(positions) > 0)
            {
                positions.Add(positions[0]);
                json.WriteStartObject();
                json.WriteString("type", "Polygon");
                json.WriteStartArray("coordinates");
                WritePositions(json, positions);
                json.WriteEndArray();
                json.WriteEndObject();
                return;
            }
        }

        var distinct = positions.Distinct().ToList();
        json.WriteStartObject();
        if (distinct.Count == 1)
        {
            json.WriteString("type", "Point");
            json.WritePropertyName("coordinates");
            WritePosition(json, distinct[0]);
        }
        else
        {
            json.WriteString("type", "LineString");
            json.WritePropertyName("coordinates");
            WritePositions(json, distinct);
        }

        json.WriteEndObject();
    }

    private static void WritePositions(Utf8JsonWriter json, List<(double Lon, double Lat)> positions)
    {
        json.WriteStartArray();
        foreach (var p in positions)
        {
            WritePosition(json, p);
        }

        json.WriteEndArray();
    }

    private static void WritePosition(Utf8JsonWriter json, (double Lon, double Lat) p)
    {
        json.WriteStartArray();
        json.WriteNumberValue(p.Lon);
        json.WriteNumberValue(p.Lat);
        json.WriteEndArray();
    }

    /// <summary>Twice the signed area (shoelace); positive for a counter-clockwise ring.</summary>
    private static double SignedArea(List<(double Lon, double Lat)> ring)
    {
        var sum = 0.0;
        for (var i = 0; i < ring.Count; i++)
        {
            var (a, b) = (ring[i], ring[(i + 1) % ring.Count]);
            sum += (a.Lon * b.Lat) - (b.Lon * a.Lat);
        }

        return sum;
    }
}
