namespace Salsa.Graphics.Charts;

public enum Scale
{
    Linear,
    Log10,
}

public enum LegendPosition
{
    /// <summary>Inside the corner that hides no data, else outside on the right.</summary>
    Auto,
    UpperRight,
    UpperLeft,
    LowerLeft,
    LowerRight,
    OutsideRight,
    None,
}

/// <summary>A fixed axis range, used as given (no padding).</summary>
public readonly record struct AxisLimits(double Min, double Max);

/// <summary>
/// How a series looks. A null <see cref="Color"/> takes the next colour of
/// <see cref="Palette.Categorical"/>; give the same colour with <see cref="LineDash.Dashed"/> to
/// show a published series beside our own.
/// </summary>
public sealed record SeriesStyle
{
    public Color? Color { get; init; }

    public double LineWidth { get; init; } = 2;

    public LineDash Dash { get; init; } = LineDash.Solid;

    /// <summary>Markers on a line series; a scatter series uses <see cref="MarkerShape.Circle"/> when this is None.</summary>
    public MarkerShape Marker { get; init; } = MarkerShape.None;

    public double MarkerSize { get; init; } = 7;

    /// <summary>Marker inside; null fills with the series colour, white gives hollow markers.</summary>
    public Color? MarkerFill { get; init; }
}
