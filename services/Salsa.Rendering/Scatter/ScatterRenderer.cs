using System.Globalization;
using Salsa.Graphics;
using Salsa.Graphics.Charts;
using Salsa.Rendering.Figures;

namespace Salsa.Rendering.Scatter;

/// <summary>
/// A scatter plot of a 2-D embedding (MDS), coloured by cluster, with a legend and optional point
/// labels, at equal aspect: one data unit is as long across as up. Salsa.Graphics' charts fit
/// each axis to its own data, so this plot lays itself out: it fixes the frame first, then
/// widens the x or the y range until both axes have the same units per pixel.
/// </summary>
public static class ScatterRenderer
{
    public static byte[] RenderPng(ScatterData data, ScatterOptions? options = null)
    {
        options = Check(data, options);
        using var canvas = Canvas.CreateRaster(options.Width, options.Height, options.PngScale);
        new ScatterPainter(canvas, data, options).Paint();
        return canvas.ToPngBytes();
    }

    public static string RenderSvg(ScatterData data, ScatterOptions? options = null)
    {
        options = Check(data, options);
        using var canvas = Canvas.CreateSvg(options.Width, options.Height);
        new ScatterPainter(canvas, data, options).Paint();
        return canvas.ToSvgString();
    }

    /// <summary>Draws the plot on a canvas of at least the options' size.</summary>
    public static void Draw(Canvas canvas, ScatterData data, ScatterOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(canvas);
        new ScatterPainter(canvas, data, Check(data, options)).Paint();
    }

    /// <summary>The data area and range the plot will have (measured on a scratch canvas).</summary>
    public static PlotTransform Plan(ScatterData data, ScatterOptions? options = null)
    {
        options = Check(data, options);
        using var canvas = Canvas.CreateRaster(1, 1);
        return new ScatterPainter(canvas, data, options).Layout().Transform;
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
}

/// <summary>Lays out and draws one scatter plot.</summary>
internal sealed class ScatterPainter(Canvas canvas, ScatterData data, ScatterOptions options)
{
    private readonly double _fontSize = Math.Clamp(Math.Min(options.Width / 900.0, options.Height / 760.0) * 13, 8, 26);

    private double Pad => _fontSize * 0.9;

    private double Gap => _fontSize * 0.4;

    private double TickLength => _fontSize * 0.4;

    private Font TitleFont => new(_fontSize * 1.3, Bold: true);

    private Font LabelFont => new(_fontSize);

    private Font TickFont => new(_fontSize * 0.85);

    private Font LegendFont => new(_fontSize * 0.85);

    public void Paint()
    {
        var layout = Layout();
        var t = layout.Transform;
        canvas.Clear(Color.White);
        foreach (var v in layout.XTicks.Major)
        {
            var x = FigureText.Crisp(t.ToCanvas(v, 0).X);
            canvas.DrawLine(x, t.Top, x, t.Bottom, new Stroke(FigureText.GridColour));
        }

        foreach (var v in layout.YTicks.Major)
        {
            var y = FigureText.Crisp(t.ToCanvas(0, v).Y);
            canvas.DrawLine(t.Left, y, t.Right, y, new Stroke(FigureText.GridColour));
        }

        using (canvas.ClipTo(t.Left, t.Top, t.Width, t.Height))
        {
            DrawPoints(t);
            DrawLabels(t);
        }

        canvas.DrawRectangle(FigureText.Crisp(t.Left), FigureText.Crisp(t.Top), Math.Round(t.Width), Math.Round(t.Height), null, new Stroke(FigureText.FrameColour));
        DrawAxes(layout);
        canvas.DrawText(options.Title, t.Left + (t.Width / 2), Pad, new TextStyle(TitleFont, FigureText.Ink, HorizontalAlignment.Center, VerticalAlignment.Top));
        canvas.DrawText(options.XLabel, t.Left + (t.Width / 2), options.Height - Pad, new TextStyle(LabelFont, FigureText.Ink, HorizontalAlignment.Center, VerticalAlignment.Bottom));
        canvas.DrawText(options.YLabel, Pad, t.Top + (t.Height / 2), new TextStyle(LabelFont, FigureText.Ink, HorizontalAlignment.Center, VerticalAlignment.Top, Rotation: 90));
        DrawLegend(t);
    }

    /// <summary>
    /// Margins from the measured tick labels, then equal units per pixel: the frame is fixed and
    /// the axis whose data is relatively shorter gets a wider range. Tick labels depend on the
    /// ranges, so this runs until the left margin stops changing (twice in practice).
    /// </summary>
    public ScatterLayout Layout()
    {
        var (minX, maxX, minY, maxY) = DataRange();
        var top = Pad + (options.Title.Length > 0 ? (TitleFont.Size * 1.25) + Gap : 0);
        var bottom = options.Height - Pad - (options.XLabel.Length > 0 ? (LabelFont.Size * 1.2) + Gap : 0) - (TickFont.Size * 1.2) - Gap - TickLength;
        var legendWidth = LegendWidth();
        var right = options.Width - Pad - (legendWidth > 0 ? legendWidth + Pad : 0);
        var yTickWidth = 0.0;
        for (var attempt = 0; ; attempt++)
        {
            var left = Pad + (options.YLabel.Length > 0 ? (LabelFont.Size * 1.2) + Gap : 0) + yTickWidth + Gap + TickLength;
            var (width, height) = (Math.Max(10, right - left), Math.Max(10, bottom - top));
            var unitsPerPixel = Math.Max((maxX - minX) / width, (maxY - minY) / height);
            var (cx, cy) = ((minX + maxX) / 2, (minY + maxY) / 2);
            var transform = new PlotTransform(left, top, width, height,
                cx - (width * unitsPerPixel / 2), cx + (width * unitsPerPixel / 2),
                cy - (height * unitsPerPixel / 2), cy + (height * unitsPerPixel / 2));
            var xTicks = NiceTicks.Linear(transform.XMin, transform.XMax, Math.Clamp((int)(width / (TickFont.Size * 6)) + 1, 2, 10));
            var yTicks = NiceTicks.Linear(transform.YMin, transform.YMax, Math.Clamp((int)(height / (TickFont.Size * 3.2)) + 1, 2, 10));
            var widest = yTicks.Labels.Select(l => canvas.MeasureText(l, TickFont).Width).DefaultIfEmpty(0).Max();
            if (Math.Abs(widest - yTickWidth) < 0.5 || attempt == 3)
            {
                return new ScatterLayout(transform, xTicks, yTicks);
            }

            yTickWidth = widest;
        }
    }

    /// <summary>The data extent plus 5% each side; a single point or a line gets a unit of room.</summary>
    private (double MinX, double MaxX, double MinY, double MaxY) DataRange()
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

    private Color ColourOf(int cluster) =>
        options.ClusterColors is { } colours ? colours[cluster] : Palette.Category(cluster);

    private string NameOf(int cluster) =>
        options.ClusterNames is { } names && cluster < names.Count ? names[cluster] : string.Create(CultureInfo.InvariantCulture, $"cluster {cluster}");

    private double MarkerSize(PlotTransform t) =>
        options.MarkerSize ?? Math.Clamp(0.5 * Math.Sqrt(t.Width * t.Height / Math.Max(1, data.Count)), 2, 8);

    private void DrawPoints(PlotTransform t)
    {
        var size = MarkerSize(t);
        var groups = Math.Max(1, data.ClusterCount);
        var byCluster = new List<Point>[groups];
        for (var i = 0; i < data.Count; i++)
        {
            var c = data.Clusters?[i] ?? 0;
            (byCluster[c] ??= []).Add(t.ToCanvas(data.X(i), data.Y(i)));
        }

        Stroke? edge = size >= 5 ? new Stroke(Color.White, 0.5) : null;
        for (var c = 0; c < groups; c++)
        {
            if (byCluster[c] is { } points)
            {
                var colour = data.Clusters is null ? Palette.Category(0) : ColourOf(c);
                canvas.DrawMarkers(points.ToArray(), MarkerShape.Circle, size, colour.WithAlpha(0.85), edge);
            }
        }
    }

    private void DrawLabels(PlotTransform t)
    {
        var font = new Font(_fontSize * 0.8);
        var size = MarkerSize(t);
        foreach (var label in data.Labels)
        {
            var at = t.ToCanvas(data.X(label.Index), data.Y(label.Index));
            canvas.DrawCircle(at.X, at.Y, (size / 2) + 2.5, null, new Stroke(FigureText.Ink, 1.2));
            var text = canvas.MeasureText(label.Text, font);
            var x = at.X + (size / 2) + 5;
            var y = at.Y - (size / 2) - 3;
            canvas.DrawRectangle(x - 2, y - text.Height + 1, text.Width + 4, text.Height, Color.White.WithAlpha(0.8));
            canvas.DrawText(label.Text, x, y, new TextStyle(font, FigureText.Ink, HorizontalAlignment.Left, VerticalAlignment.Bottom));
        }
    }

    private void DrawAxes(ScatterLayout layout)
    {
        var t = layout.Transform;
        var tick = new Stroke(FigureText.FrameColour);
        var bottom = FigureText.Crisp(t.Bottom);
        var left = FigureText.Crisp(t.Left);
        for (var i = 0; i < layout.XTicks.Major.Count; i++)
        {
            var x = t.ToCanvas(layout.XTicks.Major[i], 0).X;
            canvas.DrawLine(FigureText.Crisp(x), bottom, FigureText.Crisp(x), bottom + TickLength, tick);
            canvas.DrawText(layout.XTicks.Labels[i], x, bottom + TickLength + Gap, new TextStyle(TickFont, FigureText.Ink, HorizontalAlignment.Center, VerticalAlignment.Top));
        }

        for (var i = 0; i < layout.YTicks.Major.Count; i++)
        {
            var y = t.ToCanvas(0, layout.YTicks.Major[i]).Y;
            canvas.DrawLine(left, FigureText.Crisp(y), left - TickLength, FigureText.Crisp(y), tick);
            canvas.DrawText(layout.YTicks.Labels[i], left - TickLength - Gap, y, new TextStyle(TickFont, FigureText.Ink, HorizontalAlignment.Right, VerticalAlignment.Middle));
        }
    }

    private List<(string Label, Color? Colour)> LegendEntries()
    {
        if (data.Clusters is not { } clusters)
        {
            return [];
        }

        var present = clusters.Distinct().Order().ToArray();
        var listed = present.Take(options.MaxLegendEntries).Select(c => (NameOf(c), (Color?)ColourOf(c))).ToList();
        if (present.Length > listed.Count)
        {
            listed.Add(($"… {present.Length - listed.Count} more", null));
        }

        return listed;
    }

    private double LegendWidth()
    {
        var entries = LegendEntries();
        return entries.Count == 0 ? 0 : (LegendFont.Size * 2.6) + entries.Max(e => canvas.MeasureText(e.Label, LegendFont).Width);
    }

    private void DrawLegend(PlotTransform t)
    {
        var entries = LegendEntries();
        if (entries.Count == 0)
        {
            return;
        }

        var left = t.Right + Pad;
        var rowHeight = LegendFont.Size * 1.5;
        var y = t.Top + (rowHeight / 2);
        foreach (var (label, colour) in entries)
        {
            if (y > t.Bottom)
            {
                break;
            }

            if (colour is { } c)
            {
                canvas.DrawMarker(left + (LegendFont.Size * 0.6), y, MarkerShape.Circle, LegendFont.Size * 0.8, c);
            }

            canvas.DrawText(label, left + (LegendFont.Size * 1.6), y, new TextStyle(LegendFont, FigureText.Ink, HorizontalAlignment.Left, VerticalAlignment.Middle));
            y += rowHeight;
        }
    }
}

internal sealed record ScatterLayout(PlotTransform Transform, AxisTicks XTicks, AxisTicks YTicks);
