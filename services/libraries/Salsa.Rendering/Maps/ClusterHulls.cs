using NetTopologySuite.Algorithm;
using NetTopologySuite.Geometries;

namespace Salsa.Rendering.Maps;

/// <summary>
/// Convex hulls of each cluster's points, in (longitude, latitude). The hull is the same in the
/// clustering's planar km: an equirectangular projection is affine in longitude and latitude,
/// and affine maps keep convex hulls. NetTopologySuite's hull is used for its robust handling of
/// the degenerate cases a clustering produces (duplicate and collinear points): it returns a
/// Polygon, a LineString (two distinct points, or all collinear) or a Point.
/// </summary>
internal static class ClusterHulls
{
    private static readonly GeometryFactory Factory = new();

    /// <summary>Each cluster's hull over the points <paramref name="include"/> accepts; null for clusters with none.</summary>
    public static Geometry?[] Compute(ClusteredPoints data, Func<int, bool>? include = null)
    {
        var k = data.ClusterCount;
        var members = new List<Coordinate>?[k];
        var points = data.PointSpan;
        var assignments = data.AssignmentSpan;
        for (var i = 0; i < points.Length; i++)
        {
            if (include is null || include(i))
            {
                (members[assignments[i]] ??= []).Add(new Coordinate(points[i].Longitude, points[i].Latitude));
            }
        }

        var hulls = new Geometry?[k];
        for (var c = 0; c < k; c++)
        {
            if (members[c] is { } coordinates)
            {
                hulls[c] = CounterClockwise(new ConvexHull([.. coordinates], Factory).GetConvexHull());
            }
        }

        return hulls;
    }

    /// <summary>The hull's vertices as positions: the closed exterior ring of a polygon, else the line's or point's positions.</summary>
    public static GeoPoint[] Vertices(Geometry hull) => hull switch
    {
        Polygon polygon => [.. polygon.ExteriorRing.Coordinates.Select(ToGeo)],
        _ => [.. hull.Coordinates.Select(ToGeo)],
    };

    private static GeoPoint ToGeo(Coordinate c) => new(c.Y, c.X);

    private static Geometry CounterClockwise(Geometry hull)
    {
        if (hull is Polygon polygon && !Orientation.IsCCW(polygon.ExteriorRing.CoordinateSequence))
        {
            return Factory.CreatePolygon([.. polygon.ExteriorRing.Coordinates.Reverse()]);
        }

        return hull;
    }
}
