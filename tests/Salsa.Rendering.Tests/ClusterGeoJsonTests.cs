using System.Text.Json;
using Salsa.Rendering.Maps;

namespace Salsa.Rendering.Tests;

public sealed class ClusterGeoJsonTests
{
    [Fact]
    public void Write_IndianaFixture_IsAFeatureCollectionWithOneFeaturePerCluster()
    {
        var data = Clusterings.Indiana;

        using var json = JsonDocument.Parse(ClusterGeoJson.Write(data));

        var root = json.RootElement;
        Assert.Equal("FeatureCollection", root.GetProperty("type").GetString());
        var features = root.GetProperty("features").EnumerateArray().ToList();
        Assert.Equal(data.ClusterCount, features.Count);
        var colours = ClusterPalette.For(data);
        for (var c = 0; c < features.Count; c++)
        {
            var f = features[c];
            var properties = f.GetProperty("properties");
            Assert.Equal("Feature", f.GetProperty("type").GetString());
            Assert.Equal(c, properties.GetProperty("cluster").GetInt32());
            Assert.Equal(data.ClusterPointCounts[c], properties.GetProperty("pointCount").GetInt32());
            Assert.Equal(colours[c].ToHex(), properties.GetProperty("color").GetString());
            var centre = data.Centres.Geographic(c);
            Assert.Equal(centre.Longitude, properties.GetProperty("centreLon").GetDouble(), 6);
            Assert.Equal(centre.Latitude, properties.GetProperty("centreLat").GetDouble(), 6);
            Assert.Equal("Polygon", f.GetProperty("geometry").GetProperty("type").GetString());
        }

        Assert.Equal(1_292_660, features.Sum(f => f.GetProperty("properties").GetProperty("population").GetDouble()));
    }

    [Fact]
    public void Write_IndianaFixture_HullsAreClosedCounterClockwiseAndHoldTheirPoints()
    {
        var data = Clusterings.Indiana;

        using var json = JsonDocument.Parse(ClusterGeoJson.Write(data));

        var features = json.RootElement.GetProperty("features").EnumerateArray().ToList();
        for (var c = 0; c < features.Count; c++)
        {
            var rings = features[c].GetProperty("geometry").GetProperty("coordinates").EnumerateArray().ToList();
            var ring = Assert.Single(rings).EnumerateArray().Select(p => (Lon: p[0].GetDouble(), Lat: p[1].GetDouble())).ToList();
            Assert.True(ring.Count >= 4);
            Assert.Equal(ring[0], ring[^1]);
            Assert.True(SignedArea(ring) > 0, $"Cluster {c}'s ring is clockwise.");
            Assert.All(ring, p => Assert.Equal(Math.Round(p.Lon, 6), p.Lon));

            for (var i = 0; i < data.Count; i++)
            {
                if (data.Assignments[i] == c)
                {
                    var p = data.Points[i];
                    Assert.True(InsideOrOnBoundary(ring, p.Longitude, p.Latitude), $"Point {i} ({p}) is outside cluster {c}'s hull.");
                }
            }
        }
    }

    [Fact]
    public void Write_DegenerateClusters_GiveNullPointAndLineGeometries()
    {
        GeoPoint[] points = [new(40, -86), new(40, -86), new(41, -87), new(41, -86), new(42, -85), new(43, -84)];
        int[] assignments = [1, 1, 2, 2, 3, 3];
        var data = new ClusteredPoints(points, [1, 2, 3, 4, 5, 6], assignments, new GeographicCentres([new(40, -86), new(40, -86), new(41, -86.5), new(42.5, -84.5)]));

        using var json = JsonDocument.Parse(ClusterGeoJson.Write(data, indented: true));

        var geometries = json.RootElement.GetProperty("features").EnumerateArray().Select(f => f.GetProperty("geometry")).ToList();
        Assert.Equal(JsonValueKind.Null, geometries[0].ValueKind);
        Assert.Equal("Point", geometries[1].GetProperty("type").GetString());
        Assert.Equal(-86, geometries[1].GetProperty("coordinates")[0].GetDouble());
        Assert.Equal("LineString", geometries[2].GetProperty("type").GetString());
        Assert.Equal("LineString", geometries[3].GetProperty("type").GetString());
        Assert.Equal([0, 3, 7, 11], json.RootElement.GetProperty("features").EnumerateArray().Select(f => f.GetProperty("properties").GetProperty("population").GetDouble()));
    }

    private static double SignedArea(List<(double Lon, double Lat)> ring)
    {
        var sum = 0.0;
        for (var i = 0; i + 1 < ring.Count; i++)
        {
            sum += (ring[i].Lon * ring[i + 1].Lat) - (ring[i + 1].Lon * ring[i].Lat);
        }

        return sum / 2;
    }

    /// <summary>Ray casting, with points within rounding distance (1e-6°) of an edge counting as inside.</summary>
    private static bool InsideOrOnBoundary(List<(double Lon, double Lat)> ring, double lon, double lat)
    {
        var inside = false;
        for (int i = 0, j = ring.Count - 1; i < ring.Count; j = i++)
        {
            var (a, b) = (ring[i], ring[j]);
            if (DistanceToSegment(lon, lat, a, b) < 1e-6)
            {
                return true;
            }

            if ((a.Lat > lat) != (b.Lat > lat) && lon < a.Lon + ((lat - a.Lat) / (b.Lat - a.Lat) * (b.Lon - a.Lon)))
            {
                inside = !inside;
            }
        }

        return inside;
    }

    private static double DistanceToSegment(double x, double y, (double X, double Y) a, (double X, double Y) b)
    {
        var (dx, dy) = (b.X - a.X, b.Y - a.Y);
        var length2 = (dx * dx) + (dy * dy);
        var t = length2 == 0 ? 0 : Math.Clamp((((x - a.X) * dx) + ((y - a.Y) * dy)) / length2, 0, 1);
        return Math.Sqrt(Math.Pow(x - (a.X + (t * dx)), 2) + Math.Pow(y - (a.Y + (t * dy)), 2));
    }
}
