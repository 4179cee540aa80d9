namespace Salsa.Datasets;

/// <summary>
/// Equirectangular projection to planar kilometres: <c>x = R·(lon − lon0)·cos(lat0)</c>,
/// <c>y = R·(lat − lat0)</c>. Accurate enough at state scale for Euclidean clustering; at national
/// scale distances away from <c>lat0</c> are stretched east–west, which the data README accepts.
/// </summary>
public sealed class EquirectangularProjection
{
    /// <summary>Mean Earth radius in km.</summary>
    public const double EarthRadiusKm = 6371.0088;

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
    public static EquirectangularProjection CentredOn(IEnumerable<CensusBlockGroup> points)
    {
        double sumW = 0, sumLat = 0, sumLon = 0, plainLat = 0, plainLon = 0;
        long count = 0;
        foreach (var p in points)
        {
            sumW += p.Population;
            sumLat += p.Population * p.Latitude;
            sumLon += p.Population * p.Longitude;
            plainLat += p.Latitude;
            plainLon += p.Longitude;
            count++;
        }

        // With no population at all, the plain mean position is the only sensible centre.
        return count == 0
            ? throw new ArgumentException("Cannot centre a projection on no points.", nameof(points))
            : sumW > 0
                ? new EquirectangularProjection(sumLat / sumW, sumLon / sumW)
                : new EquirectangularProjection(plainLat / count, plainLon / count);
    }

    public (double X, double Y) Forward(double latitude, double longitude)
    {
        var x = EarthRadiusKm * double.DegreesToRadians(longitude - OriginLongitude) * _cosLat0;
        var y = EarthRadiusKm * double.DegreesToRadians(latitude - OriginLatitude);
        return (x, y);
    }

    public (double Latitude, double Longitude) Inverse(double x, double y)
    {
        var lat = OriginLatitude + double.RadiansToDegrees(y / EarthRadiusKm);
        var lon = OriginLongitude + double.RadiansToDegrees(x / (EarthRadiusKm * _cosLat0));
        return (lat, lon);
    }
}
