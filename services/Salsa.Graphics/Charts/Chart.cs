namespace Salsa.Graphics.Charts;

/// <summary>
/// A 2-D chart: line, scatter and grouped bar series on linear or log axes, with ticks, axis
/// titles and a legend, rendered to PNG or SVG.
/// </summary>
/// <example>
/// <code>
/// var chart = new Chart("Allreduce latency", "message size (bytes)", "latency (µs)") { XScale = Scale.Log10, YScale = Scale.Log10 };
/// chart.AddLine("Salsa.Ccr", sizes, ours, new SeriesStyle { Marker = MarkerShape.Circle });
/// chart.AddLine("seed paper", sizes, theirs, new SeriesStyle { Color = chart.Series[0].Color, Dash = LineDash.Dashed });
/// chart.RenderPng("allreduce.png", 900, 560);
/// </code>
/// </example>
public sealed class Chart(string title = "", string xLabel = "", string yLabel = "")
{
    private readonly List<Series> _series = [];
    private int _nextColour;
    private int _barSeries;

    public string Title { get; set; } = title;

    public string XLabel { get; set; } = xLabel;

    public string YLabel { get; set; } = yLabel;

    public Scale XScale { get; set; } = Scale.Linear;

    public Scale YScale { get; set; } = Scale.Linear;

    /// <summary>Fixed x range; null fits the data with a 5% margin.</summary>
    public AxisLimits? XLimits { get; set; }

    /// <summary>Fixed y range; null fits the data with a 5% margin (bars always include zero on a linear axis).</summary>
    public AxisLimits? YLimits { get; set; }

    public LegendPosition Legend { get; set; } = LegendPosition.Auto;

    /// <summary>Axis title size in canvas units; the title is 1.25×, ticks and legend 0.9× this.</summary>
    public double FontSize
    {
        get;
        set
        {
            ArgumentOutOfRangeException.ThrowIfNegativeOrZero(value);
            field = value;
        }
    } = 13;

    public IReadOnlyList<Series> Series => _series;

    /// <summary>A line through the points in order. NaN points leave a gap; so do points a log axis cannot show.</summary>
    public LineSeries AddLine(string name, ReadOnlySpan<double> x, ReadOnlySpan<double> y, SeriesStyle? style = null, ReadOnlySpan<double> yErrors = default)
    {
        style ??= new SeriesStyle();
        return Add(new LineSeries(name, x, y, yErrors, style, ColourFor(style)), style);
    }

    /// <summary>A marker at each point; NaN points are skipped.</summary>
    public ScatterSeries AddScatter(string name, ReadOnlySpan<double> x, ReadOnlySpan<double> y, SeriesStyle? style = null, ReadOnlySpan<double> yErrors = default)
    {
        style ??= new SeriesStyle();
        return Add(new ScatterSeries(name, x, y, yErrors, style, ColourFor(style)), style);
    }

    /// <summary>
    /// One bar per category, beside the bars of earlier bar series (a grouped bar chart, e.g. one
    /// series per implementation and one category per rank count). Categories are shown in the
    /// order first seen. A chart with bars has a category x axis and no other kind of series.
    /// </summary>
    public BarSeries AddBars(string name, IReadOnlyList<string> categories, ReadOnlySpan<double> values, SeriesStyle? style = null, ReadOnlySpan<double> errors = default)
    {
        style ??= new SeriesStyle();
        var bars = Add(new BarSeries(name, categories, values, errors, style, ColourFor(style), _barSeries), style);
        _barSeries++;
        return bars;
    }

    /// <summary>
    /// Many points coloured by category (negative = unassigned), for clusterings of up to about
    /// 10⁵ points. The legend names categories from <paramref name="categoryNames"/>, else "cluster n".
    /// </summary>
    public CategoricalScatterSeries AddCategoricalScatter(ReadOnlySpan<double> x, ReadOnlySpan<double> y, ReadOnlySpan<int> categories, IReadOnlyList<string>? categoryNames = null, double markerSize = 3)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(markerSize);
        var style = new SeriesStyle { MarkerSize = markerSize, Color = Palette.Category(0) };
        return Add(new CategoricalScatterSeries(x, y, categories, categoryNames, style), style);
    }

    /// <summary>Draws the chart over the whole canvas.</summary>
    public void Draw(Canvas canvas)
    {
        ArgumentNullException.ThrowIfNull(canvas);
        Draw(canvas, 0, 0, canvas.Width, canvas.Height);
    }

    /// <summary>Draws the chart into a rectangle of the canvas, e.g. one panel of a figure.</summary>
    public void Draw(Canvas canvas, double left, double top, double width, double height)
    {
        ArgumentNullException.ThrowIfNull(canvas);
        new ChartRenderer(this, canvas, left, top, width, height).Render();
    }

    /// <summary>Renders to a PNG file; <paramref name="scale"/> 2 gives a sharper image of the same layout.</summary>
    public void RenderPng(string path, int width, int height, double scale = 1)
    {
        using var canvas = RenderRaster(width, height, scale);
        canvas.SavePng(path);
    }

    public void RenderPng(Stream stream, int width, int height, double scale = 1)
    {
        using var canvas = RenderRaster(width, height, scale);
        canvas.SavePng(stream);
    }

    public byte[] RenderPngBytes(int width, int height, double scale = 1)
    {
        using var canvas = RenderRaster(width, height, scale);
        return canvas.ToPngBytes();
    }

    public void RenderSvg(string path, int width, int height)
    {
        using var canvas = Canvas.CreateSvgFile(path, width, height);
        Draw(canvas);
        canvas.Finish();
    }

    public void RenderSvg(Stream stream, int width, int height)
    {
        using var canvas = Canvas.CreateSvg(width, height);
        Draw(canvas);
        canvas.SaveSvg(stream);
    }

    public string RenderSvgString(int width, int height)
    {
        using var canvas = Canvas.CreateSvg(width, height);
        Draw(canvas);
        return canvas.ToSvgString();
    }

    private Canvas RenderRaster(int width, int height, double scale)
    {
        var canvas = Canvas.CreateRaster(width, height, scale);
        try
        {
            Draw(canvas);
            return canvas;
        }
        catch
        {
            canvas.Dispose();
            throw;
        }
    }

    private Color ColourFor(SeriesStyle style) => style.Color ?? Palette.Category(_nextColour);

    /// <summary>Adds a constructed (so validated) series; only then does it use up a palette colour.</summary>
    private T Add<T>(T series, SeriesStyle style)
        where T : Series
    {
        _series.Add(series);
        if (style.Color is null)
        {
            _nextColour++;
        }

        return series;
    }
}
