namespace Salsa.Rendering.Drawing;

/// <summary>A point in canvas units (pixels for a raster canvas at scale 1), y pointing down.</summary>
public readonly record struct Point(double X, double Y);

/// <summary>How a line is drawn. Dash lengths scale with <see cref="Width"/>.</summary>
public readonly record struct Stroke(Color Color, double Width = 1.0, LineDash Dash = LineDash.Solid);

public enum LineDash
{
    Solid,
    Dashed,
    Dotted,
    DashDot,
}

public enum MarkerShape
{
    None,
    Circle,
    Square,
    Triangle,
    Diamond,
    Cross,
}
