namespace Salsa.Rendering.Atlas;

/// <summary>A polygon as rings of positions: the exterior, then any holes. Rings are closed (first = last).</summary>
public sealed record GeoPolygon(IReadOnlyList<GeoPoint> Exterior, IReadOnlyList<IReadOnlyList<GeoPoint>> Holes)
{
    public IEnumerable<IReadOnlyList<GeoPoint>> Rings => Holes.Prepend(Exterior);
}

/// <summary>One geometry of a TopoJSON object with its <c>id</c> and <c>properties.name</c>.</summary>
public sealed record TopoFeature(string? Id, string? Name, IReadOnlyList<GeoPolygon> Polygons)
{
    /// <summary>Every ring of every polygon, exteriors and holes alike.</summary>
    public IEnumerable<IReadOnlyList<GeoPoint>> Rings => Polygons.SelectMany(p => p.Rings);

    public GeoBounds Bounds { get; } = Polygons.SelectMany(p => p.Exterior).Aggregate(GeoBounds.Empty, (b, p) => b.Include(p));
}
