using System.Globalization;

namespace Salsa.DataFiles;

/// <summary>
/// Equirectangular projection to planar kilometres: <c>x = R·(lon − lon0)·cos(lat0)</c>,
/// <c>y = R·(lat − lat0)</c>. Accurate enough at state scale for Euclidean clustering; at national
/// scale distances away from <c>lat0</c> are stretched east–west, which the data README accepts.
/// </summary>
public sealed class EquirectangularProjection
{
    /// <summary>Mean Earth radius in km.</summary>
    public const double EarthRadiusKm = 6371.0088;

    /// <summary>The metadata keys of a point set projected with this projection (what the census service writes, the render service reads).</summary>
    public const string OriginLatitudeKey = "origin_latitude";

    public const string OriginLongitudeKey = "origin_longitude";

    public const string ProjectionKey = "projection";

    public const string UnitsKey = "units";

    public const string Name = "equirectangular";

    private readonly double _cosLat0;

    public EquirectangularProjection(double originLatitude, double originLongitude)
    {
        if (!double.IsFinite(originLatitude) || originLatitude is <= -90 or >= 90)
        {
            throw new ArgumentOutOfRangeException(nameof(originLatitude), originLatitude, "The origin latitude must lie strictly between -90 and 90 degrees.");
        }

        OriginLatitude = originLatitude;
        OriginLongitude = originLongitude;
        _cosLat0 = Math.Cos(double.DegreesToRadians(originLatitude));
    }

    public double OriginLatitude { get; }

    public double OriginLongitude { get; }

    /// <summary>A projection centred on the population-weighted mean position of the points.</summary>
    public static EquirectangularProjection CentredOn(IEnumerable<CensusBlockGroup> points) =>
        CentredOn(points.Select(p => (p.Latitude, p.Longitude, (double)p.Population)));

    /// <summary>
    /// A projection centred on the weighted mean position of the places (the plain mean when none
    /// weighs anything). Longitudes are averaged about the first one, so places either side of the
    /// antimeridian (Fiji, the Aleutians) centre between them, not on the far side of the globe.
    /// </summary>
    public static EquirectangularProjection CentredOn(IEnumerable<(double Latitude, double Longitude, double Weight)> places)
    {
        ArgumentNullException.ThrowIfNull(places);
        double sumW = 0, sumLat = 0, sumLon = 0, plainLat = 0, plainLon = 0;
        var reference = double.NaN;
        long count = 0;
        foreach (var (latitude, longitude, weight) in places)
        {
            reference = double.IsNaN(reference) ? longitude : reference;
            var unwrapped = Math.Abs(longitude - reference) <= 180 ? longitude : reference + Wrap(longitude - reference);
            sumW += weight;
            sumLat += weight * latitude;
            sumLon += weight * unwrapped;
            plainLat += latitude;
            plainLon += unwrapped;
            count++;
        }

        // With no weight at all, the plain mean position is the only sensible centre.
        return count == 0
            ? throw new ArgumentException("Cannot centre a projection on no points.", nameof(places))
            : sumW > 0
                ? new EquirectangularProjection(Math.Clamp(sumLat / sumW, -89, 89), Wrap(sumLon / sumW))
                : new EquirectangularProjection(Math.Clamp(plainLat / count, -89, 89), Wrap(plainLon / count));
    }

    /// <summary>A longitude difference (or a longitude) brought into [−180, 180).</summary>
    public static double Wrap(double degrees) => degrees - (360 * Math.Floor((degrees + 180) / 360));

    public (double X, double Y) Forward(double latitude, double longitude)
    {
        var x = EarthRadiusKm * double.DegreesToRadians(Wrap(longitude - OriginLongitude)) * _cosLat0;
        var y = EarthRadiusKm * double.DegreesToRadians(latitude - OriginLatitude);
        return (x, y);
    }

    public (double Latitude, double Longitude) Inverse(double x, double y)
    {
        var lat = OriginLatitude + double.RadiansToDegrees(y / EarthRadiusKm);
        var lon = Wrap(OriginLongitude + double.RadiansToDegrees(x / (EarthRadiusKm * _cosLat0)));
        return (lat, lon);
    }

    /// <summary>What a dataset's metadata records about its projection: the name, the units and the origin (round-trip precision).</summary>
    public IReadOnlyDictionary<string, string> ToMetadata() => new Dictionary<string, string>
    {
        [ProjectionKey] = Name,
        [UnitsKey] = "km",
        [OriginLatitudeKey] = OriginLatitude.ToString("R", CultureInfo.InvariantCulture),
        [OriginLongitudeKey] = OriginLongitude.ToString("R", CultureInfo.InvariantCulture),
    };

    /// <summary>
    /// The projection a dataset's metadata records (<see cref="ToMetadata"/>); null when it records
    /// none, another projection, or an origin that is not a valid latitude/longitude.
    /// </summary>
    public static EquirectangularProjection? FromMetadata(IReadOnlyDictionary<string, string> metadata)
    {
        ArgumentNullException.ThrowIfNull(metadata);
        if ((metadata.TryGetValue(ProjectionKey, out var name) && name != Name)
            || !metadata.TryGetValue(OriginLatitudeKey, out var latitude) || !metadata.TryGetValue(OriginLongitudeKey, out var longitude)
            || !double.TryParse(latitude, NumberStyles.Float, CultureInfo.InvariantCulture, out var lat)
            || !double.TryParse(longitude, NumberStyles.Float, CultureInfo.InvariantCulture, out var lon)
            || !double.IsFinite(lat) || lat is <= -90 or >= 90 || !double.IsFinite(lon) || lon is < -180 or > 180)
        {
            return null;
        }

        return new EquirectangularProjection(lat, lon);
    }
}
