using ScottPlot;

namespace Salsa.Rendering.Charts;

public enum Scale
{
    Linear,
    Log10,
}

/// <summary>A fixed axis range in data units (not logarithms), used as given.</summary>
public readonly record struct AxisRange(double Min, double Max);

/// <summary>
/// How a series looks. <see cref="Hollow"/> markers and a dashed line mark a seed paper's series
/// drawn beside our own in the same colour.
/// </summary>
public sealed record SeriesStyle(Color Color)
{
    public float LineWidth { get; init; } = 2;

    public bool Dashed { get; init; }

    public MarkerShape Marker { get; init; } = MarkerShape.None;

    public float MarkerSize { get; init; } = 7;

    public bool Hollow { get; init; }
}

/// <summary>
/// A benchmark figure on ScottPlot: lines, scatter points and grouped bars over linear or
/// logarithmic axes. It keeps the series and builds the plot when drawn, because a log axis
/// changes how every series is plotted (ScottPlot's axes are linear; log data is plotted as
/// log₁₀ with <see cref="ChartStyle.UseLogScale"/> labelling the ticks).
/// </summary>
public sealed class Chart(string title = "", string xLabel = "", string yLabel = "")
{
    private readonly List<Series> _series = [];
    private readonly List<string> _categories = [];
    private int _barSeries;

    public Scale XScale { get; init; } = Scale.Linear;

    public Scale YScale { get; init; } = Scale.Linear;

    /// <summary>Fixed y range; null fits the data (bars always start at the axis).</summary>
    public AxisRange? YLimits { get; set; }

    /// <summary>Every value plotted, for limits and checks.</summary>
    public IEnumerable<double> Values => _series.SelectMany(s => s.Y).Where(double.IsFinite);

    /// <summary>A line through the points in order; points with a NaN are left out.</summary>
    public void AddLine(string name, ReadOnlySpan<double> x, ReadOnlySpan<double> y, SeriesStyle style) =>
        _series.Add(new Series(SeriesKind.Line, name, x.ToArray(), Same(y, x.Length), null, style, 0));

    /// <summary>Markers at the points; NaN points are left out.</summary>
    public void AddScatter(string name, ReadOnlySpan<double> x, ReadOnlySpan<double> y, SeriesStyle style) =>
        _series.Add(new Series(SeriesKind.Scatter, name, x.ToArray(), Same(y, x.Length), null, style with { Marker = style.Marker == MarkerShape.None ? MarkerShape.FilledCircle : style.Marker }, 0));

    /// <summary>
    /// One bar per category beside the bars of earlier bar series (one series per implementation,
    /// one category per case), with optional symmetric error bars; a NaN value leaves its slot empty.
    /// </summary>
    public void AddBars(string name, IReadOnlyList<string> categories, ReadOnlySpan<double> values, SeriesStyle style, ReadOnlySpan<double> errors = default)
    {
        foreach (var category in categories.Where(c => !_categories.Contains(c)))
        {
            _categories.Add(category);
        }

        var x = categories.Select(c => (double)_categories.IndexOf(c)).ToArray();
        _series.Add(new Series(SeriesKind.Bars, name, x, Same(values, x.Length), errors.IsEmpty ? null : Same(errors, x.Length), style, _barSeries++));
    }

    /// <summary>The ScottPlot plot of this chart; the caller renders and disposes it.</summary>
    public Plot ToPlot()
    {
        var plot = ChartStyle.NewPlot(title, xLabel, yLabel);
        if (XScale == Scale.Log10)
        {
            ChartStyle.UseLogScale(plot.Axes.Bottom);
        }

        if (YScale == Scale.Log10)
        {
            ChartStyle.UseLogScale(plot.Axes.Left);
        }

        var barWidth = 0.8 / Math.Max(1, _barSeries);
        var barBase = BarBase();
        foreach (var series in _series)
        {
            if (series.Kind == SeriesKind.Bars)
            {
                AddBars(plot, series, barWidth, barBase);
            }
            else
            {
                AddPoints(plot, series);
            }
        }

        if (XScale == Scale.Linear && _categories.Count == 0 && _series.SelectMany(s => s.X).Where(double.IsFinite).All(x => x == Math.Round(x)))
        {
            // Counts (ranks, clusters) get whole-number ticks.
            plot.Axes.Bottom.TickGenerator = new ScottPlot.TickGenerators.NumericAutomatic { IntegerTicksOnly = true };
        }

        if (_categories.Count > 0)
        {
            plot.Axes.Bottom.SetTicks([.. Enumerable.Range(0, _categories.Count).Select(i => (double)i)], [.. _categories]);
            plot.Axes.SetLimitsX(-0.5, _categories.Count - 0.5);
        }

        FitY(plot, barBase);
        PlaceLegend(plot);
        return plot;
    }

    private double PlotX(double x) => XScale == Scale.Log10 ? Log(x) : x;

    private double PlotY(double y) => YScale == Scale.Log10 ? Log(y) : y;

    private static double Log(double v) => v > 0 && double.IsFinite(v) ? Math.Log10(v) : double.NaN;

    /// <summary>Where bars start: zero on a linear axis, below the smallest bar on a log axis.</summary>
    private double BarBase()
    {
        if (YScale == Scale.Linear)
        {
            return 0;
        }

        var smallest = _series.Where(s => s.Kind == SeriesKind.Bars).SelectMany(s => s.Y).Where(v => v > 0).DefaultIfEmpty(1).Min();
        var low = YLimits is { } limits && limits.Min > 0 ? Math.Log10(limits.Min) : Math.Log10(smallest) - 0.3;
        return Math.Floor(low * 2) / 2;
    }

    private void AddPoints(Plot plot, Series series)
    {
        var keep = Enumerable.Range(0, series.X.Length).Where(i => double.IsFinite(PlotX(series.X[i])) && double.IsFinite(PlotY(series.Y[i]))).ToArray();
        var scatter = plot.Add.Scatter(keep.Select(i => PlotX(series.X[i])).ToArray(), keep.Select(i => PlotY(series.Y[i])).ToArray(), series.Style.Color);
        scatter.LegendText = series.Name;
        scatter.LineWidth = series.Kind == SeriesKind.Line ? series.Style.LineWidth : 0;
        scatter.LinePattern = series.Style.Dashed ? LinePattern.Dashed : LinePattern.Solid;
        scatter.MarkerShape = series.Style.Hollow ? Open(series.Style.Marker) : series.Style.Marker;
        scatter.MarkerSize = series.Style.Marker == MarkerShape.None ? 0 : series.Style.MarkerSize;
        scatter.MarkerLineWidth = series.Style.Hollow ? 1.5f : 1;
    }

    private void AddBars(Plot plot, Series series, double width, double barBase)
    {
        var bars = new List<Bar>();
        var (xs, ys, up, down) = (new List<double>(), new List<double>(), new List<double>(), new List<double>());
        var offset = (series.BarIndex - ((_barSeries - 1) / 2.0)) * width;
        for (var i = 0; i < series.X.Length; i++)
        {
            var top = PlotY(series.Y[i]);
            if (!double.IsFinite(top))
            {
                continue;
            }

            var position = series.X[i] + offset;
            bars.Add(new Bar { Position = position, Value = top, ValueBase = barBase, Size = width * 0.92, FillColor = series.Style.Color, LineWidth = 0 });
            if (series.Errors is { } errors && double.IsFinite(errors[i]) && errors[i] > 0)
            {
                var (value, error) = (series.Y[i], errors[i]);
                xs.Add(position);
                ys.Add(top);
                up.Add(PlotY(value + error) - top);
                // On a log axis the lower end can fall at or below zero: run it down to the base.
                var low = PlotY(value - error);
                down.Add(double.IsFinite(low) ? top - low : top - barBase);
            }
        }

        var plottable = plot.Add.Bars(bars);
        plottable.LegendText = series.Name;
        if (xs.Count > 0)
        {
            var whiskers = plot.Add.ErrorBar(xs, ys, down);
            whiskers.YErrorPositive = up;
            whiskers.YErrorNegative = down;
            whiskers.Color = Colors.Black.WithAlpha(0.7);
            whiskers.CapSize = 4;
        }
    }

    private void FitY(Plot plot, double barBase)
    {
        if (YLimits is { } limits)
        {
            plot.Axes.SetLimitsY(PlotY(limits.Min), PlotY(limits.Max));
            return;
        }

        plot.Axes.AutoScaleY();
        var high = plot.Axes.Left.Max;
        if (_barSeries > 0)
        {
            // Bars stand on the axis; the legend gets room above the tallest.
            plot.Axes.SetLimitsY(barBase, high + ((high - barBase) * 0.3));
        }
        else if (YScale == Scale.Linear && plot.Axes.GetDataLimits().Bottom >= 0)
        {
            // Counts and rates start at zero.
            plot.Axes.SetLimitsY(0, high);
        }
    }

    /// <summary>Inside the corner of the data area where the fewest points fall; outside on the right if every corner is busy.</summary>
    private void PlaceLegend(Plot plot)
    {
        if (!_series.Any(s => s.Name.Length > 0))
        {
            return;
        }

        var xs = _series.SelectMany(s => s.X).Select(PlotX).Where(double.IsFinite).ToList();
        var (x0, x1) = _categories.Count > 0 ? (-0.5, _categories.Count - 0.5) : (xs.DefaultIfEmpty(0).Min(), xs.DefaultIfEmpty(1).Max());
        var (y0, y1) = (plot.Axes.Left.Min, plot.Axes.Left.Max);
        (double X, double Y) Normal(double x, double y) => ((PlotX(x) - x0) / Math.Max(1e-12, x1 - x0), (PlotY(y) - y0) / Math.Max(1e-12, y1 - y0));
        var points = _series.SelectMany(s =>
            {
                var marks = s.X.Select((x, i) => Normal(x, s.Y[i])).ToList();
                return s.Kind == SeriesKind.Line ? Along(marks) : marks;
            })
            .Where(p => double.IsFinite(p.X) && double.IsFinite(p.Y)).ToList();
        // A bar fills everything below its top, so for bars only the upper corners can be free.
        Alignment[] corners = _barSeries > 0 ? [Alignment.UpperRight, Alignment.UpperLeft] : [Alignment.UpperRight, Alignment.UpperLeft, Alignment.LowerRight, Alignment.LowerLeft];
        var free = corners.Where(c => !points.Any(p => InCorner(c, p.X, p.Y))).ToList();
        if (free.Count > 0 && _series.Count(s => s.Name.Length > 0) <= 6)
        {
            plot.ShowLegend(free[0]);
        }
        else
        {
            plot.ShowLegend(Edge.Right);
        }
    }

    /// <summary>A line's points and points along each of its segments: a line crossing a corner between two points fills it too.</summary>
    private static IEnumerable<(double X, double Y)> Along(List<(double X, double Y)> points)
    {
        const int Steps = 16;
        for (var i = 0; i < points.Count; i++)
        {
            yield return points[i];
            for (var k = 1; i + 1 < points.Count && k < Steps; k++)
            {
                var t = k / (double)Steps;
                yield return (points[i].X + (t * (points[i + 1].X - points[i].X)), points[i].Y + (t * (points[i + 1].Y - points[i].Y)));
            }
        }
    }

    /// <summary>The outlined form of a filled marker shape.</summary>
    private static MarkerShape Open(MarkerShape shape) => shape switch
    {
        MarkerShape.FilledCircle => MarkerShape.OpenCircle,
        MarkerShape.FilledSquare => MarkerShape.OpenSquare,
        MarkerShape.FilledTriangleUp => MarkerShape.OpenTriangleUp,
        MarkerShape.FilledTriangleDown => MarkerShape.OpenTriangleDown,
        MarkerShape.FilledDiamond => MarkerShape.OpenDiamond,
        _ => shape,
    };

    private static bool InCorner(Alignment corner, double x, double y) => corner switch
    {
        Alignment.UpperRight => x > 0.55 && y > 0.6,
        Alignment.UpperLeft => x < 0.45 && y > 0.6,
        Alignment.LowerRight => x > 0.55 && y < 0.4,
        _ => x < 0.45 && y < 0.4,
    };

    private static double[] Same(ReadOnlySpan<double> values, int length) =>
        values.Length == length ? values.ToArray() : throw new ArgumentException($"Expected {length} values, got {values.Length}.", nameof(values));

    private enum SeriesKind
    {
        Line,
        Scatter,
        Bars,
    }

    private sealed record Series(SeriesKind Kind, string Name, double[] X, double[] Y, double[]? Errors, SeriesStyle Style, int BarIndex);
}
