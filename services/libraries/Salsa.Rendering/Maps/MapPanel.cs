using Salsa.DataFiles;
using Salsa.Rendering.Drawing;

namespace Salsa.Rendering.Maps;

/// <summary>
/// One map view on the canvas: a rectangle showing the equirectangular plane of
/// <see cref="Projection"/> at <see cref="PixelsPerKm"/>, north up. Longitudes are taken within
/// 180° of the projection's origin, so a view of Alaska stays whole across the antimeridian.
/// </summary>
public sealed class MapPanel
{
    private readonly double _centreXKm;
    private readonly double _centreYKm;

    internal MapPanel(UsRegion? region, string name, double left, double top, double width, double height, EquirectangularProjection projection, double pixelsPerKm, double centreXKm, double centreYKm)
    {
        (Region, Name, Left, Top, Width, Height, Projection, PixelsPerKm) = (region, name, left, top, width, height, projection, pixelsPerKm);
        (_centreXKm, _centreYKm) = (centreXKm, centreYKm);
    }

    /// <summary>The part of the US this panel shows; null for a single view of all the data.</summary>
    public UsRegion? Region { get; }

    public string Name { get; }

    public double Left { get; }

    public double Top { get; }

    public double Width { get; }

    public double Height { get; }

    public double Right => Left + Width;

    public double Bottom => Top + Height;

    /// <summary>The plane the panel draws in: the clustering's own for the main view, when the centres gave it.</summary>
    public EquirectangularProjection Projection { get; }

    /// <summary>Canvas units per km of the plane (the same across and up: the view keeps the aspect).</summary>
    public double PixelsPerKm { get; }

    /// <summary>The canvas width of 360° of longitude (at the projection's scale).</summary>
    public double WorldWidth => 2 * Math.PI * EquirectangularProjection.EarthRadiusKm * Math.Cos(double.DegreesToRadians(Projection.OriginLatitude)) * PixelsPerKm;

    /// <summary>Where <paramref name="position"/> falls on the canvas (it may be outside the panel).</summary>
    public Point ToCanvas(GeoPoint position)
    {
        var (x, y) = ToPlane(Projection, position);
        return FromPlane(x, y);
    }

    /// <summary>Where plane coordinates (km) fall on the canvas.</summary>
    public Point FromPlane(double xKm, double yKm) => new(
        Left + (Width / 2) + ((xKm - _centreXKm) * PixelsPerKm),
        Top + (Height / 2) - ((yKm - _centreYKm) * PixelsPerKm));

    public bool Contains(Point canvasPoint) =>
        canvasPoint.X >= Left && canvasPoint.X <= Right && canvasPoint.Y >= Top && canvasPoint.Y <= Bottom;

    /// <summary>The width of the view in km.</summary>
    public double WidthKm => Width / PixelsPerKm;

    public double HeightKm => Height / PixelsPerKm;

    /// <summary>Plane coordinates (km) of a position, its longitude taken within 180° of the origin's.</summary>
    internal static (double X, double Y) ToPlane(EquirectangularProjection projection, GeoPoint position) =>
        projection.Forward(position.Latitude, position.Longitude);
}
