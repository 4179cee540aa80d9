using Salsa.Rendering.Drawing;
using Salsa.Rendering.Figures;

namespace Salsa.Rendering.Maps;

/// <summary>
/// The side-column legend: proportional centre circles with nested reference sizes, a key to
/// the symbols, and each cluster's colour and population when there are few clusters.
/// </summary>
internal sealed class MapLegend(Canvas canvas, MapPlan plan)
{
    /// <summary>Clusters listed one by one up to this many; beyond it colours repeat and a list would not help.</summary>
    public const int MaxListedClusters = 12;

    private double _y = plan.LegendTop;

    private double Left => plan.SideLeft;

    private double Width => plan.SideWidth;

    private double Bottom => plan.BodyBottom;

    private double FontSize => plan.FontSize;

    public void Draw()
    {
        Heading("Cluster centres");
        Line("circle area ∝ cluster population", FigureText.Muted, FontSize * 0.8);
        _y += FontSize * 0.3;
        ReferenceCircles();
        _y += FontSize * 0.8;

        Heading("Key");
        KeyRow(DrawPointSample, "point, coloured by cluster");
        if (plan.Options.ShowHulls)
        {
            KeyRow(DrawHullSample, "convex hull of a cluster");
        }

        KeyRow(DrawCentreSample, "cluster centre");
        _y += FontSize * 0.8;

        if (plan.Data.ClusterCount <= MaxListedClusters)
        {
            Heading("Clusters (population)");
            for (var c = 0; c < plan.Data.ClusterCount; c++)
            {
                var colour = plan.Colours[c];
                var label = $"{c}: {FigureText.Population(plan.Data.ClusterPopulations[c])} in {FigureText.Count(plan.Data.ClusterPointCounts[c])} points";
                if (!KeyRow((x, y) => canvas.DrawRectangle(x - (FontSize * 0.55), y - (FontSize * 0.4), FontSize * 1.1, FontSize * 0.8, colour), label))
                {
                    break;
                }
            }
        }
    }

    private void Heading(string text) => Line(text, FigureText.Ink, FontSize * 0.92, bold: true);

    private bool Line(string text, Color colour, double size, bool bold = false)
    {
        var height = size * 1.45;
        if (_y + height > Bottom)
        {
            return false;
        }

        canvas.DrawText(text, Left, _y, new TextStyle(new Font(size, bold), colour, HorizontalAlignment.Left, VerticalAlignment.Top));
        _y += height;
        return true;
    }

    /// <summary>A sample drawn centred at (x, y), then a label; false when the column is full.</summary>
    private bool KeyRow(Action<double, double> sample, string label)
    {
        var height = FontSize * 1.55;
        if (_y + height > Bottom)
        {
            return false;
        }

        var middle = _y + (height / 2);
        sample(Left + (FontSize * 0.9), middle);
        canvas.DrawText(label, Left + (FontSize * 2.2), middle, new TextStyle(new Font(FontSize * 0.8), FigureText.Ink, HorizontalAlignment.Left, VerticalAlignment.Middle));
        _y += height;
        return true;
    }

    /// <summary>Nested circles on a common baseline for round populations up to the largest cluster's.</summary>
    private void ReferenceCircles()
    {
        var max = plan.MaxPopulation;
        if (max <= 0)
        {
            Line("(no population)", FigureText.Muted, FontSize * 0.8);
            return;
        }

        var values = new[] { max, max / 4, max / 16 }.Select(FigureText.NiceFloor).Distinct().Where(v => v > 0).ToArray();
        var largest = plan.CentreRadius(values[0]);
        if (_y + (2 * largest) > Bottom)
        {
            return;
        }

        var baseline = _y + (2 * largest);
        var centreX = Left + largest + 2;
        var labelX = centreX + largest + (FontSize * 1.2);
        var font = new Font(FontSize * 0.8);
        var grey = Color.FromHex("#7a7a7a");
        foreach (var v in values)
        {
            var r = plan.CentreRadius(v);
            canvas.DrawCircle(centreX, baseline - r, r, Color.FromHex("#8c8c8c").WithAlpha(0.15), new Stroke(grey, 1));
        }

        // Labels at the circles' tops, pushed down where small circles would crowd them.
        var labelY = double.NegativeInfinity;
        foreach (var v in values)
        {
            var r = plan.CentreRadius(v);
            var top = baseline - (2 * r);
            labelY = Math.Max(top, labelY + (font.Size * 1.25));
            canvas.DrawPolyline([new(centreX, top), new(labelX - 8, top), new(labelX - 3, labelY)], new Stroke(grey, 0.6, LineDash.Dotted));
            canvas.DrawText(FigureText.Population(v), labelX, labelY, new TextStyle(font, FigureText.Ink, HorizontalAlignment.Left, VerticalAlignment.Middle));
        }

        _y = Math.Max(baseline, labelY + (font.Size * 0.7));
    }

    private void DrawPointSample(double x, double y)
    {
        for (var i = 0; i < 3; i++)
        {
            canvas.DrawCircle(x - (FontSize * 0.45) + (i * FontSize * 0.45), y + ((i % 2 == 0 ? 1 : -1) * FontSize * 0.15), FontSize * 0.17, plan.Colours[Math.Min(i, plan.Colours.Count - 1)]);
        }
    }

    private void DrawHullSample(double x, double y)
    {
        var s = FontSize * 0.55;
        var colour = plan.Colours[0];
        canvas.DrawPolygon([new(x - s, y + (s * 0.6)), new(x - (s * 0.3), y - (s * 0.7)), new(x + s, y - (s * 0.3)), new(x + (s * 0.6), y + (s * 0.7))], colour.WithAlpha(MapPainter.HullFillOpacity), new Stroke(colour.WithAlpha(0.85), 1.1));
    }

    private void DrawCentreSample(double x, double y)
    {
        var colour = plan.Colours[0];
        canvas.DrawCircle(x, y, FontSize * 0.5, colour.WithAlpha(0.3), new Stroke(FigureText.Darker(colour), 1.4));
        canvas.DrawCircle(x, y, Math.Max(1.6, FontSize * 0.14), Color.FromHex("#1a1a1a"), new Stroke(Color.White, 0.8));
    }
}
