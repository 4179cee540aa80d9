using Salsa.Rendering.Drawing;
using ScottPlot;
using SkiaSharp;
using DrawingColor = Salsa.Rendering.Drawing.Color;
using Palette = Salsa.Rendering.Drawing.Palette;
using PlotColor = ScottPlot.Color;

namespace Salsa.Rendering.Charts;

/// <summary>
/// How this project makes charts with ScottPlot: every plot set in the embedded DejaVu Sans (no
/// system font is looked up), log axes, colours from <see cref="Palette"/>, and PNG or SVG output
/// of one plot or of several as the panels of one figure.
/// </summary>
/// <example>
/// <code>
/// var plot = ChartStyle.NewPlot("Allreduce latency", "message size (bytes)", "latency (µs)");
/// ChartStyle.UseLogScale(plot.Axes.Left);
/// plot.Add.Scatter(sizes, ChartStyle.Log10(latencies));
/// File.WriteAllBytes("allreduce.png", ChartStyle.RenderPng(plot, 900, 560));
/// </code>
/// </example>
public static class ChartStyle
{
    static ChartStyle()
    {
        // ScottPlot asks its resolvers in order and caches the answer; ours goes first, so the
        // family name below never reaches the system font manager.
        Fonts.FontResolvers.Insert(0, new EmbeddedFontResolver());
        Fonts.Default = EmbeddedFonts.Family;
        Fonts.Sans = EmbeddedFonts.Family;
    }

    public static readonly PlotColor Ink = PlotColor.FromHex("#262626");
    public static readonly PlotColor Grid = PlotColor.FromHex("#e6e6e6");

    /// <summary>A plot with title and axis labels in the project's font and colours.</summary>
    public static Plot NewPlot(string title = "", string xLabel = "", string yLabel = "")
    {
        var plot = new Plot();
        plot.Title(title);
        plot.XLabel(xLabel);
        plot.YLabel(yLabel);
        plot.Axes.Title.Label.ForeColor = Ink;
        plot.Axes.Color(Ink);
        plot.Grid.MajorLineColor = Grid;
        plot.Legend.FontName = EmbeddedFonts.Family;
        return plot;
    }

    /// <summary>
    /// Makes <paramref name="axis"/> logarithmic. ScottPlot's axes are linear: plot the base-10
    /// logarithm of the values (<see cref="Log10(ReadOnlySpan{double})"/>) and this labels the
    /// ticks with the values themselves.
    /// </summary>
    public static void UseLogScale(IAxis axis)
    {
        ArgumentNullException.ThrowIfNull(axis);
        axis.TickGenerator = new LogTicks();
    }

    /// <summary>
    /// log₁₀ of each value; zero, negative and non-finite values become NaN, which ScottPlot leaves
    /// out (a gap in a line).
    /// </summary>
    public static double[] Log10(ReadOnlySpan<double> values)
    {
        var logs = new double[values.Length];
        for (var i = 0; i < values.Length; i++)
        {
            logs[i] = values[i] > 0 && double.IsFinite(values[i]) ? Math.Log10(values[i]) : double.NaN;
        }

        return logs;
    }

    public static PlotColor ToPlotColor(this DrawingColor colour) =>
        PlotColor.FromARGB(((uint)Math.Round(colour.A * 255) << 24) | ((uint)Math.Round(colour.R * 255) << 16) | ((uint)Math.Round(colour.G * 255) << 8) | (uint)Math.Round(colour.B * 255));

    /// <summary>The colour of category <paramref name="index"/> of <see cref="Palette"/> (the census map's and the scatter plot's).</summary>
    public static PlotColor Category(int index) => Palette.Category(index).ToPlotColor();

    /// <summary>A PNG of <paramref name="width"/>×<paramref name="height"/> units; <paramref name="scale"/> 2 doubles the pixels, same layout.</summary>
    public static byte[] RenderPng(Plot plot, int width, int height, double scale = 1) => RenderPng([plot], 1, width, height, scale);

    public static string RenderSvg(Plot plot, int width, int height) => RenderSvg([plot], 1, width, height);

    /// <summary>Several plots as the panels of one PNG, <paramref name="columns"/> to a row, each panel the given size.</summary>
    public static byte[] RenderPng(IReadOnlyList<Plot> panels, int columns, int panelWidth, int panelHeight, double scale = 1)
    {
        var (width, height) = FigureSize(panels, columns, panelWidth, panelHeight);
        using var canvas = Canvas.CreateRaster(width, height, scale);
        Draw(canvas, panels, columns, panelWidth, panelHeight);
        return canvas.ToPngBytes();
    }

    /// <summary>Several plots as the panels of one SVG document; text stays text.</summary>
    public static string RenderSvg(IReadOnlyList<Plot> panels, int columns, int panelWidth, int panelHeight)
    {
        var (width, height) = FigureSize(panels, columns, panelWidth, panelHeight);
        using var canvas = Canvas.CreateSvg(width, height);
        Draw(canvas, panels, columns, panelWidth, panelHeight);
        return canvas.ToSvgString();
    }

    private static (int Width, int Height) FigureSize(IReadOnlyList<Plot> panels, int columns, int panelWidth, int panelHeight)
    {
        ArgumentNullException.ThrowIfNull(panels);
        ArgumentOutOfRangeException.ThrowIfZero(panels.Count);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(columns);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(panelWidth);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(panelHeight);
        var rows = (panels.Count + columns - 1) / columns;
        return (Math.Min(columns, panels.Count) * panelWidth, rows * panelHeight);
    }

    private static void Draw(Canvas canvas, IReadOnlyList<Plot> panels, int columns, int panelWidth, int panelHeight)
    {
        canvas.Clear(DrawingColor.White);
        for (var i = 0; i < panels.Count; i++)
        {
            // A plot clears its figure area first: clipped, that is its own panel only.
            var plot = panels[i];
            FitTitle(plot, panelWidth, panelHeight);
            canvas.DrawWithSkia(i % columns * panelWidth, i / columns * panelHeight, panelWidth, panelHeight,
                (skia, area) => plot.Render(skia, new PixelRect(area.Left, area.Right, area.Bottom, area.Top)));
        }
    }

    /// <summary>
    /// A title wider than the room it has (ScottPlot centres it over the data area and lets it run
    /// past the figure's edges) is set smaller, down to <see cref="SmallestTitle"/>, then broken
    /// into lines between words, so every word is drawn inside the figure.
    /// </summary>
    internal static void FitTitle(Plot plot, int panelWidth, int panelHeight)
    {
        var title = plot.Axes.Title.Label;
        using var paint = Paint.NewDisposablePaint();
        float Width(string text) => title.Measure(text, paint).Size.Width;
        if (string.IsNullOrWhiteSpace(title.Text) || Width(title.Text) <= panelWidth - (2 * (TitleMargin + SurelyCentred)))
        {
            return;
        }

        // The title's centre is the data area's, which the axes and legend push off the panel's.
        plot.RenderInMemory(panelWidth, panelHeight);
        var centre = plot.LastRender.DataRect.HorizontalCenter;
        var available = 2 * (Math.Min(centre, panelWidth - centre) - TitleMargin);
        var words = title.Text.Replace('\n', ' ').Split(' ', StringSplitOptions.RemoveEmptyEntries);
        title.Text = string.Join(' ', words);
        while (Width(title.Text) > available && title.FontSize > SmallestTitle)
        {
            title.FontSize = Math.Max(SmallestTitle, title.FontSize * 0.92f);
        }

        if (Width(title.Text) <= available)
        {
            return;
        }

        var lines = new List<string>();
        var line = "";
        foreach (var word in words)
        {
            var longer = line.Length == 0 ? word : $"{line} {word}";
            if (line.Length > 0 && Width(longer) > available)
            {
                lines.Add(line);
                line = word;
            }
            else
            {
                line = longer;
            }
        }

        lines.Add(line);
        title.Text = string.Join('\n', lines);
    }

    /// <summary>The least font size a title is set in to fit its panel before it is broken into lines.</summary>
    private const float SmallestTitle = 11;

    /// <summary>The space kept clear of a title at each side of its panel.</summary>
    private const int TitleMargin = 8;

    /// <summary>How far off the panel's centre the data area's may be without a layout to say so.</summary>
    private const int SurelyCentred = 150;

    private sealed class EmbeddedFontResolver : IFontResolver
    {
        public SKTypeface? CreateTypeface(string fontName, bool bold, bool italic) =>
            fontName == EmbeddedFonts.Family ? EmbeddedFonts.Typeface(bold) : null;

        public SKTypeface? CreateTypeface(string fontName, FontWeight weight, FontSlant slant, FontSpacing spacing) =>
            CreateTypeface(fontName, weight >= FontWeight.SemiBold, slant != FontSlant.Upright);
    }
}
