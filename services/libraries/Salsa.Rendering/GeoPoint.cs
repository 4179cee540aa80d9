namespace Salsa.Rendering;

/// <summary>A position in decimal degrees (WGS84 / NAD83, which agree at map scale).</summary>
public readonly record struct GeoPoint(double Latitude, double Longitude)
{
    public bool IsFinite => double.IsFinite(Latitude) && double.IsFinite(Longitude);
}

/// <summary>A latitude/longitude box; <see cref="Empty"/> until something is included.</summary>
public readonly record struct GeoBounds(double MinLatitude, double MinLongitude, double MaxLatitude, double MaxLongitude)
{
    public static GeoBounds Empty { get; } = new(double.PositiveInfinity, double.PositiveInfinity, double.NegativeInfinity, double.NegativeInfinity);

    public bool IsEmpty => MinLatitude > MaxLatitude || MinLongitude > MaxLongitude;

    public GeoBounds Include(GeoPoint p) => new(
        Math.Min(MinLatitude, p.Latitude),
        Math.Min(MinLongitude, p.Longitude),
        Math.Max(MaxLatitude, p.Latitude),
        Math.Max(MaxLongitude, p.Longitude));

    public GeoBounds Include(GeoBounds other) => other.IsEmpty ? this : IsEmpty ? other : new(
        Math.Min(MinLatitude, other.MinLatitude),
        Math.Min(MinLongitude, other.MinLongitude),
        Math.Max(MaxLatitude, other.MaxLatitude),
        Math.Max(MaxLongitude, other.MaxLongitude));

    public bool Contains(GeoPoint p) =>
        p.Latitude >= MinLatitude && p.Latitude <= MaxLatitude && p.Longitude >= MinLongitude && p.Longitude <= MaxLongitude;

    public bool Intersects(GeoBounds other) =>
        !IsEmpty && !other.IsEmpty &&
        other.MinLatitude <= MaxLatitude && other.MaxLatitude >= MinLatitude &&
        other.MinLongitude <= MaxLongitude && other.MaxLongitude >= MinLongitude;

    public static GeoBounds Of(IEnumerable<GeoPoint> points)
    {
        ArgumentNullException.ThrowIfNull(points);
        var bounds = Empty;
        foreach (var p in points)
        {
            bounds = bounds.Include(p);
        }

        return bounds;
    }
}
