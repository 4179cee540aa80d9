using Salsa.Rendering.Drawing;

namespace Salsa.Rendering.Scatter;

/// <summary>
/// Where the data area sits on the canvas and the data range it shows. The scatter plot keeps
/// equal aspect: <see cref="PixelsPerUnitX"/> equals <see cref="PixelsPerUnitY"/>, so a unit
/// square of data is a square on the canvas.
/// </summary>
public sealed record PlotTransform(double Left, double Top, double Width, double Height, double XMin, double XMax, double YMin, double YMax)
{
    public double Right => Left + Width;

    public double Bottom => Top + Height;

    public double PixelsPerUnitX => Width / (XMax - XMin);

    public double PixelsPerUnitY => Height / (YMax - YMin);

    /// <summary>Canvas position of data point (x, y); y grows upwards in data, downwards on the canvas.</summary>
    public Point ToCanvas(double x, double y) => new(Left + ((x - XMin) * PixelsPerUnitX), Bottom - ((y - YMin) * PixelsPerUnitY));
}
