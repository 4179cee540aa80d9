using System.Globalization;
using Salsa.Rendering.Charts;
using ScottPlot;
using ScottPlot.AxisRules;
using Palette = Salsa.Rendering.Drawing.Palette;
using PlotColor = ScottPlot.Color;

namespace Salsa.Rendering.Scatter;

/// <summary>
/// A scatter plot of a 2-D embedding (MDS) on ScottPlot, coloured by cluster, with a legend beside
/// it and optional point labels, at equal aspect: one data unit is as long across as up
/// (ScottPlot's <see cref="SquareZoomOut"/> rule widens whichever axis is relatively shorter, so
/// every point stays in view).
/// </summary>
public static class ScatterRenderer
{
    public static byte[] RenderPng(ScatterData data, ScatterOptions? options = null)
    {
        options = Check(data, options);
        using var plot = Build(data, options);
        return ChartStyle.RenderPng(plot, options.Width, options.Height, options.PngScale);
    }

    public static string RenderSvg(ScatterData data, ScatterOptions? options = null)
    {
        options = Check(data, options);
        using var plot = Build(data, options);
        return ChartStyle.RenderSvg(plot, options.Width, options.Height);
    }

    /// <summary>Where the data area lands and the range it shows, as the PNG and SVG draw it.</summary>
    public static PlotTransform Plan(ScatterData data, ScatterOptions? options = null)
    {
        options = Check(data, options);
        using var plot = Build(data, options);
        ChartStyle.FitTitle(plot, options.Width, options.Height); // as the PNG and SVG set it
        plot.RenderInMemory(options.Width, options.Height);
        var area = plot.LastRender.DataRect;
        var limits = plot.LastRender.AxisLimits;
        return new PlotTransform(area.Left, area.Top, area.Width, area.Height, limits.Left, limits.Right, limits.Bottom, limits.Top);
    }

    private static ScatterOptions Check(ScatterData data, ScatterOptions? options)
    {
        ArgumentNullException.ThrowIfNull(data);
        options ??= new ScatterOptions();
        options.Validate();
        if (options.ClusterColors is { } colours && colours.Count < data.ClusterCount)
        {
            throw new ArgumentException($"The data has {data.ClusterCount} clusters but options.ClusterColors has {colours.Count} colours.", nameof(options));
        }

        return options;
    }

    private static Plot Build(ScatterData data, ScatterOptions options)
    {
        // Text grows with the figure: 13 units at the default 900×760.
        var fontSize = (float)Math.Clamp(Math.Min(options.Width / 900.0, options.Height / 760.0) * 13, 8, 26);
        var plot = ChartStyle.NewPlot(options.Title, options.XLabel, options.YLabel);
        plot.Axes.Title.Label.FontSize = fontSize * 1.3f;
        plot.Axes.Bottom.Label.FontSize = plot.Axes.Left.Label.FontSize = fontSize;
        plot.Axes.Bottom.TickLabelStyle.FontSize = plot.Axes.Left.TickLabelStyle.FontSize = fontSize * 0.85f;

        var markerSize = (float)(options.MarkerSize ?? Math.Clamp(0.5 * Math.Sqrt(0.6 * options.Width * options.Height / Math.Max(1, data.Count)), 2, 8));
        AddPoints(plot, data, options, markerSize);
        AddLabels(plot, data, markerSize, fontSize * 0.8f);
        AddLegend(plot, data, options, fontSize * 0.85f);

        var (minX, maxX, minY, maxY) = DataRange(data);
        plot.Axes.SetLimits(minX, maxX, minY, maxY);
        plot.Axes.Rules.Add(new SquareZoomOut(plot.Axes.Bottom, plot.Axes.Left));
        return plot;
    }

    private static void AddPoints(Plot plot, ScatterData data, ScatterOptions options, float markerSize)
    {
        var groups = Math.Max(1, data.ClusterCount);
        var xs = new List<double>[groups];
        var ys = new List<double>[groups];
        for (var i = 0; i < data.Count; i++)
        {
            var c = data.Clusters?[i] ?? 0;
            (xs[c] ??= []).Add(data.X(i));
            (ys[c] ??= []).Add(data.Y(i));
        }

        for (var c = 0; c < groups; c++)
        {
            if (xs[c] is null)
            {
                continue;
            }

            var points = plot.Add.ScatterPoints(xs[c].ToArray(), ys[c].ToArray(), ColourOf(options, data.Clusters is null ? 0 : c).WithAlpha(0.85));
            points.MarkerShape = MarkerShape.FilledCircle;
            points.MarkerSize = markerSize;
            if (markerSize >= 5)
            {
                // A thin white edge keeps large overlapping markers apart.
                points.MarkerLineColor = Colors.White;
                points.MarkerLineWidth = 0.5f;
            }
        }
    }

    private static void AddLabels(Plot plot, ScatterData data, float markerSize, float fontSize)
    {
        foreach (var label in data.Labels)
        {
            var (x, y) = (data.X(label.Index), data.Y(label.Index));
            var ring = plot.Add.Marker(x, y, MarkerShape.OpenCircle, markerSize + 5, ChartStyle.Ink);
            ring.MarkerLineWidth = 1.2f;
            var text = plot.Add.Text(label.Text, x, y);
            text.LabelFontSize = fontSize;
            text.LabelFontColor = ChartStyle.Ink;
            text.LabelBackgroundColor = Colors.White.WithAlpha(0.8);
            text.Alignment = Alignment.LowerLeft;
            text.OffsetX = (markerSize / 2) + 5;
            text.OffsetY = -((markerSize / 2) + 3);
        }
    }

    /// <summary>One entry per cluster present, in order, up to the options' limit, then how many more there are.</summary>
    private static void AddLegend(Plot plot, ScatterData data, ScatterOptions options, float fontSize)
    {
        if (data.Clusters is not { } clusters)
        {
            return;
        }

        var present = clusters.Distinct().Order().ToArray();
        foreach (var c in present.Take(options.MaxLegendEntries))
        {
            plot.Legend.ManualItems.Add(new LegendItem
            {
                LabelText = NameOf(options, c),
                MarkerShape = MarkerShape.FilledCircle,
                MarkerSize = fontSize * 0.8f,
                MarkerFillColor = ColourOf(options, c),
                MarkerLineColor = ColourOf(options, c),
            });
        }

        if (present.Length > options.MaxLegendEntries)
        {
            plot.Legend.ManualItems.Add(new LegendItem { LabelText = $"… {present.Length - options.MaxLegendEntries} more" });
        }

        plot.Legend.FontSize = fontSize;
        plot.ShowLegend(Edge.Right);
    }

    /// <summary>The data extent plus 5% each side; a single point or a line gets a unit of room.</summary>
    private static (double MinX, double MaxX, double MinY, double MaxY) DataRange(ScatterData data)
    {
        if (data.Count == 0)
        {
            return (-1, 1, -1, 1);
        }

        double minX = double.PositiveInfinity, maxX = double.NegativeInfinity, minY = double.PositiveInfinity, maxY = double.NegativeInfinity;
        for (var i = 0; i < data.Count; i++)
        {
            (minX, maxX) = (Math.Min(minX, data.X(i)), Math.Max(maxX, data.X(i)));
            (minY, maxY) = (Math.Min(minY, data.Y(i)), Math.Max(maxY, data.Y(i)));
        }

        var span = Math.Max(maxX - minX, maxY - minY);
        var margin = span > 0 ? span * 0.05 : Math.Max(1, Math.Abs(minX) * 0.1);
        return (minX - margin, maxX + margin, minY - margin, maxY + margin);
    }

    private static PlotColor ColourOf(ScatterOptions options, int cluster) =>
        (options.ClusterColors is { } colours ? colours[cluster] : Palette.Category(cluster)).ToPlotColor();

    private static string NameOf(ScatterOptions options, int cluster) =>
        options.ClusterNames is { } names && cluster < names.Count ? names[cluster] : string.Create(CultureInfo.InvariantCulture, $"cluster {cluster}");
}
