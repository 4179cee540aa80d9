namespace Salsa.Rendering.Atlas;

/// <summary>Point-in-polygon on longitude/latitude rings, treated as plane coordinates.</summary>
public static class RingGeometry
{
    /// <summary>True when <paramref name="p"/> is inside the ring (even–odd rule; points on an edge may go either way).</summary>
    public static bool Contains(IReadOnlyList<GeoPoint> ring, GeoPoint p)
    {
        ArgumentNullException.ThrowIfNull(ring);
        var inside = false;
        for (int i = 0, j = ring.Count - 1; i < ring.Count; j = i++)
        {
            var (a, b) = (ring[i], ring[j]);
            if ((a.Latitude > p.Latitude) != (b.Latitude > p.Latitude)
                && p.Longitude < a.Longitude + ((p.Latitude - a.Latitude) / (b.Latitude - a.Latitude) * (b.Longitude - a.Longitude)))
            {
                inside = !inside;
            }
        }

        return inside;
    }

    /// <summary>True when <paramref name="p"/> is inside the polygon's exterior and outside its holes.</summary>
    public static bool Contains(GeoPolygon polygon, GeoPoint p)
    {
        ArgumentNullException.ThrowIfNull(polygon);
        return Contains(polygon.Exterior, p) && !polygon.Holes.Any(h => Contains(h, p));
    }

    /// <summary>True when any polygon of <paramref name="feature"/> contains <paramref name="p"/>.</summary>
    public static bool Contains(TopoFeature feature, GeoPoint p)
    {
        ArgumentNullException.ThrowIfNull(feature);
        return feature.Bounds.Contains(p) && feature.Polygons.Any(polygon => Contains(polygon, p));
    }
}
