namespace Salsa.Graphics.Charts;

/// <summary>Where the data area sits on the canvas and how data maps into it, as the series need it.</summary>
internal sealed class PlotFrame(AxisMap x, AxisMap y, double left, double top, double right, double bottom, IReadOnlyList<string> categories, int barSeriesCount)
{
    private readonly Dictionary<string, int> _categoryIndex = categories
        .Select((name, index) => (name, index))
        .ToDictionary(c => c.name, c => c.index, StringComparer.Ordinal);

    public AxisMap X { get; } = x;

    public AxisMap Y { get; } = y;

    public double Left { get; } = left;

    public double Top { get; } = top;

    public double Right { get; } = right;

    public double Bottom { get; } = bottom;

    public double Width => Right - Left;

    public double Height => Bottom - Top;

    /// <summary>Bar series side by side in each category.</summary>
    public int BarSeriesCount { get; } = barSeriesCount;

    /// <summary>Where bars stand: at a log axis's bottom, else at zero (or the nearest end).</summary>
    public double BarBaseline => Y.Scale == Scale.Log10 ? Y.Min : Math.Clamp(0, Y.Min, Y.Max);

    /// <summary>The x value of a category's centre on a bar chart's axis (categories sit at 0, 1, 2…).</summary>
    public int CategoryIndex(string category) => _categoryIndex[category];

    public Point ToCanvas(double x, double y) => new(X.ToPixel(x), Y.ToPixel(y));

    /// <summary>Maps the points into <paramref name="into"/>; points an axis cannot show become NaN.</summary>
    public void ToCanvas(ReadOnlySpan<double> xs, ReadOnlySpan<double> ys, Span<Point> into)
    {
        for (var i = 0; i < xs.Length; i++)
        {
            into[i] = new Point(X.ToPixel(xs[i]), Y.ToPixel(ys[i]));
        }
    }
}
