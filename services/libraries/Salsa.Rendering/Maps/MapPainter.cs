using System.Globalization;
using System.Runtime.InteropServices;
using NetTopologySuite.Geometries;
using Salsa.Rendering.Atlas;
using Salsa.Rendering.Drawing;
using Salsa.Rendering.Figures;
using GraphicsPoint = Salsa.Rendering.Drawing.Point;

namespace Salsa.Rendering.Maps;

/// <summary>
/// Draws a planned census map on a canvas, the same calls for PNG and SVG. Layers, bottom up:
/// land (the world's countries, then the US), country, county and state outlines, cluster hulls, points, centre circles, labels; then scale
/// bars, frames, title, legend and caption.
/// </summary>
internal sealed class MapPainter(Canvas canvas, MapPlan plan, UsAtlas atlas)
{
    /// <summary>Point radii step through this many sizes, so points are drawn in few batches.</summary>
    private const int SizeLevels = 6;
    private const double MinSizeFactor = 0.6;
    private const double MaxSizeFactor = 1.7;

    /// <summary>Outline vertices closer than this (canvas units) to the last one kept are dropped.</summary>
    private const double OutlineTolerance = 0.35;

    internal const double HullFillOpacity = 0.13;

    private static readonly Color Background = Color.FromHex("#e6ebf0");
    private static readonly Color ContextLand = Color.FromHex("#f3f3f0");
    private static readonly Color Land = Color.FromHex("#ffffff");
    private static readonly Stroke CountyStroke = new(Color.FromHex("#d0d3d6"), 0.5);
    private static readonly Stroke StateStroke = new(Color.FromHex("#737a81"), 1.0);
    private static readonly Stroke CoastStroke = new(Color.FromHex("#7a8086"), 0.9);
    private static readonly Stroke CountryStroke = new(Color.FromHex("#8d939a"), 0.8);
    private static readonly Color CentreDot = Color.FromHex("#1a1a1a");

    private readonly ClusteredPoints _data = plan.Data;
    private readonly List<GraphicsPoint> _path = [];
    private readonly List<GraphicsPoint> _ring = [];

    /// <summary>Whether any of the US atlas's land fell inside a panel (the caption credits the outlines only then).</summary>
    private bool _drewUsLand;

    /// <summary>Whether any country beyond the US fell inside a panel.</summary>
    private bool _drewWorldLand;

    /// <summary>Points drawn (the SVG may draw an evenly strided subset).</summary>
    public int DrawnPoints { get; private set; }

    public void Paint()
    {
        canvas.Clear(Color.White);
        var layout = plan.Layout;
        var sampleEvery = SampleStride();
        for (var p = 0; p < layout.Panels.Count; p++)
        {
            var panel = layout.Panels[p];
            using (canvas.ClipTo(panel.Left, panel.Top, panel.Width, panel.Height))
            {
                canvas.DrawRectangle(panel.Left, panel.Top, panel.Width, panel.Height, Background);
                DrawWorld(panel);
                DrawLand(panel);
                if (layout.ShowsCounties && p == 0)
                {
                    DrawOutlines(panel, atlas.Counties.SelectMany(c => c.Rings), CountyStroke);
                }

                DrawOutlines(panel, atlas.States.SelectMany(s => s.Rings), StateStroke);
                DrawOutlines(panel, atlas.Nation.SelectMany(n => n.Rings), CoastStroke);
                if (plan.Options.ShowHulls)
                {
                    DrawHulls(panel, p);
                }

                DrawPoints(panel, p, sampleEvery);
                DrawCentres(panel);
            }

            DrawScaleBar(panel, main: p == 0);
            canvas.DrawRectangle(FigureText.Crisp(panel.Left), FigureText.Crisp(panel.Top), Math.Round(panel.Width), Math.Round(panel.Height), null, new Stroke(FigureText.FrameColour, 1));
            if (panel.Region is { } region && region != UsRegion.Conterminous)
            {
                canvas.DrawText(panel.Name, panel.Left, panel.Top - 4, new TextStyle(new Font(plan.FontSize * 0.85, Bold: true), FigureText.Ink, HorizontalAlignment.Left, VerticalAlignment.Bottom));
            }
        }

        DrawTitle();
        new MapLegend(canvas, plan).Draw();
        DrawCaption(sampleEvery);
    }

    /// <summary>The SVG keeps every n-th point (in input order) to stay under the point budget; 0 draws none.</summary>
    private double SampleStride()
    {
        if (canvas.Kind != CanvasKind.Svg || _data.Count <= plan.Options.MaxSvgPoints)
        {
            return 1;
        }

        return plan.Options.MaxSvgPoints == 0 ? 0 : (double)_data.Count / plan.Options.MaxSvgPoints;
    }

    private static bool Sampled(int index, double stride) =>
        stride == 1 || (stride > 0 && Math.Floor((index + 1) / stride) > Math.Floor(index / stride));

    /// <summary>
    /// The countries beyond the US with their borders: the land itself under places elsewhere, muted
    /// context (Canada, Mexico, the Caribbean) around data in the US.
    /// </summary>
    private void DrawWorld(MapPanel panel)
    {
        var abroad = plan.World.Abroad;
        _drewWorldLand |= FillPolygons(panel, abroad.SelectMany(c => c.Polygons), plan.InUs ? ContextLand : Land, belongsOnly: false);
        DrawOutlines(panel, abroad.SelectMany(c => c.Rings), CountryStroke, belongsOnly: false);
    }

    /// <summary>The nation as context land, then the states the data is in as full land.</summary>
    private void DrawLand(MapPanel panel)
    {
        var focus = plan.FocusStates.ToHashSet();
        var everything = atlas.States.All(s => focus.Contains(s) || !Visible(panel, s));
        _drewUsLand |= FillPolygons(panel, atlas.Nation.SelectMany(n => n.Polygons), everything ? Land : ContextLand);
        if (!everything)
        {
            FillPolygons(panel, plan.FocusStates.SelectMany(s => s.Polygons), Land);
        }
    }

    /// <summary>
    /// Fills the polygons that fall in the panel (only those of the panel's part of the US when
    /// <paramref name="belongsOnly"/>); true when any did.
    /// </summary>
    private bool FillPolygons(MapPanel panel, IEnumerable<GeoPolygon> polygons, Color colour, bool belongsOnly = true)
    {
        var drew = false;
        foreach (var polygon in polygons)
        {
            if ((!belongsOnly || Belongs(panel, polygon.Exterior)) && Project(panel, polygon.Exterior))
            {
                drew = true;
                canvas.DrawPolygon(CollectionsMarshal.AsSpan(_ring), colour);
                foreach (var hole in polygon.Holes)
                {
                    if (Project(panel, hole))
                    {
                        canvas.DrawPolygon(CollectionsMarshal.AsSpan(_ring), Background);
                    }
                }
            }
        }

        return drew;
    }

    /// <summary>All rings in one stroked path (gaps between rings), so shared borders are not inked twice.</summary>
    private void DrawOutlines(MapPanel panel, IEnumerable<IReadOnlyList<GeoPoint>> rings, Stroke stroke, bool belongsOnly = true)
    {
        _path.Clear();
        foreach (var ring in rings)
        {
            if ((!belongsOnly || Belongs(panel, ring)) && Project(panel, ring))
            {
                _path.AddRange(_ring);
                _path.Add(new GraphicsPoint(double.NaN, double.NaN));
            }
        }

        if (_path.Count > 0)
        {
            canvas.DrawPolyline(CollectionsMarshal.AsSpan(_path), stroke);
        }
    }

    /// <summary>Whether any of the feature's bounding box falls in the panel (and the feature belongs to it).</summary>
    private static bool Visible(MapPanel panel, TopoFeature feature)
    {
        if (feature.Polygons.Count == 0 || !Belongs(panel, feature.Polygons[0].Exterior))
        {
            return false;
        }

        var b = feature.Bounds;
        var corners = new[] { new GeoPoint(b.MinLatitude, b.MinLongitude), new GeoPoint(b.MaxLatitude, b.MaxLongitude) }.Select(panel.ToCanvas).ToArray();
        return Math.Max(corners[0].X, corners[1].X) >= panel.Left && Math.Min(corners[0].X, corners[1].X) <= panel.Right
            && Math.Max(corners[0].Y, corners[1].Y) >= panel.Top && Math.Min(corners[0].Y, corners[1].Y) <= panel.Bottom;
    }

    /// <summary>A panel of one part of the US draws only that part's outlines (the main view would otherwise show Puerto Rico's coast at its edge).</summary>
    private static bool Belongs(MapPanel panel, IReadOnlyList<GeoPoint> ring) =>
        panel.Region is not { } region || (ring.Count > 0 && UsRegions.Of(ring[0]) == region);

    /// <summary>
    /// Projects a ring into <see cref="_ring"/>, dropping vertices that would not move the pen a
    /// visible amount; false when the ring lies wholly outside the panel.
    /// </summary>
    private bool Project(MapPanel panel, IReadOnlyList<GeoPoint> ring)
    {
        _ring.Clear();
        double minX = double.PositiveInfinity, minY = double.PositiveInfinity, maxX = double.NegativeInfinity, maxY = double.NegativeInfinity;
        var last = new GraphicsPoint(double.NaN, double.NaN);

        // A ring that crosses the antimeridian (Alaska's Aleutians, Fiji) stays whole: a vertex is
        // moved by the world's width when it would jump more than half of it from the one before.
        var world = panel.WorldWidth;
        double previousX = double.NaN, shift = 0;
        for (var i = 0; i < ring.Count; i++)
        {
            var raw = panel.ToCanvas(ring[i]);
            if (i > 0 && Math.Abs(raw.X - previousX) > world / 2)
            {
                shift -= Math.Sign(raw.X - previousX) * world;
            }

            previousX = raw.X;
            var c = new GraphicsPoint(raw.X + shift, raw.Y);
            (minX, maxX) = (Math.Min(minX, c.X), Math.Max(maxX, c.X));
            (minY, maxY) = (Math.Min(minY, c.Y), Math.Max(maxY, c.Y));
            if (i == 0 || i == ring.Count - 1 || Math.Abs(c.X - last.X) + Math.Abs(c.Y - last.Y) >= OutlineTolerance)
            {
                _ring.Add(c);
                last = c;
            }
        }

        const double Slack = 2;
        return _ring.Count >= 2 && maxX >= panel.Left - Slack && minX <= panel.Right + Slack && maxY >= panel.Top - Slack && minY <= panel.Bottom + Slack;
    }

    private void DrawHulls(MapPanel panel, int panelIndex)
    {
        // The hull of what the panel shows: a cluster point beyond the view (an unpopulated islet
        // far from the populated ones) would otherwise drag its hull across the whole panel.
        var points = _data.Points;
        var hulls = ClusterHulls.Compute(_data, i => plan.PointPanel[i] == panelIndex && panel.Contains(panel.ToCanvas(points[i])));
        for (var c = 0; c < hulls.Length; c++)
        {
            if (hulls[c] is not { } hull || hull is NetTopologySuite.Geometries.Point)
            {
                continue;
            }

            var vertices = ClusterHulls.Vertices(hull).Select(panel.ToCanvas).ToArray();
            var colour = plan.Colours[c];
            if (hull is Polygon)
            {
                canvas.DrawPolygon(vertices, colour.WithAlpha(HullFillOpacity), new Stroke(colour.WithAlpha(0.85), 1.1));
            }
            else
            {
                canvas.DrawPolyline(vertices, new Stroke(colour.WithAlpha(0.85), 1.1));
            }
        }
    }

    private void DrawPoints(MapPanel panel, int panelIndex, double stride)
    {
        var points = _data.PointSpan;
        var weights = _data.WeightSpan;
        var assignments = _data.AssignmentSpan;
        var drawn = new List<int>();
        for (var i = 0; i < points.Length; i++)
        {
            if (plan.PointPanel[i] == panelIndex && Sampled(i, stride))
            {
                drawn.Add(i);
            }
        }

        DrawnPoints += drawn.Count;
        if (drawn.Count == 0)
        {
            return;
        }

        // Dots share the panel's data area: a few hundred get 3-unit dots, the nation's 240k
        // well under one, so dense cities read as dense rather than as one blot.
        var dataArea = panel.Width * panel.Height * 0.6;
        var baseRadius = Math.Clamp(0.33 * Math.Sqrt(dataArea / drawn.Count), 0.55, 3.2);
        var typical = Median(drawn.Select(i => _data.Weights[i]).Where(w => w > 0));

        // Counting sort by (cluster, size level), then a few batched fills per group.
        var groups = _data.ClusterCount * SizeLevels;
        var offsets = new int[groups + 1];
        var keys = new int[drawn.Count];
        for (var j = 0; j < drawn.Count; j++)
        {
            var i = drawn[j];
            var factor = Math.Clamp(Math.Pow(weights[i] / typical, 0.25), MinSizeFactor, MaxSizeFactor);
            var level = (int)Math.Round((factor - MinSizeFactor) / (MaxSizeFactor - MinSizeFactor) * (SizeLevels - 1));
            keys[j] = (assignments[i] * SizeLevels) + level;
            offsets[keys[j] + 1]++;
        }

        for (var g = 1; g <= groups; g++)
        {
            offsets[g] += offsets[g - 1];
        }

        var sorted = new GraphicsPoint[drawn.Count];
        var fill = (int[])offsets.Clone();
        for (var j = 0; j < drawn.Count; j++)
        {
            sorted[fill[keys[j]]++] = panel.ToCanvas(points[drawn[j]]);
        }

        Stroke? edge = baseRadius >= 2 ? new Stroke(Color.White, 0.5) : null;
        for (var g = 0; g < groups; g++)
        {
            var count = offsets[g + 1] - offsets[g];
            if (count == 0)
            {
                continue;
            }

            var level = g % SizeLevels;
            var factor = MinSizeFactor + ((MaxSizeFactor - MinSizeFactor) * level / (SizeLevels - 1));
            canvas.DrawMarkers(sorted.AsSpan(offsets[g], count), MarkerShape.Circle, 2 * baseRadius * factor, plan.Colours[g / SizeLevels], edge);
        }
    }

    private static double Median(IEnumerable<double> values)
    {
        var sorted = values.Order().ToArray();
        return sorted.Length == 0 ? 1 : sorted[sorted.Length / 2];
    }

    private void DrawCentres(MapPanel panel)
    {
        var layout = plan.Layout;
        var mine = Enumerable.Range(0, _data.ClusterCount)
            .Where(c => layout.Panels.Count == 1 || layout.PanelFor(_data.Centres.Geographic(c)) == panel)
            .OrderByDescending(c => _data.ClusterPopulations[c])
            .ThenBy(c => c)
            .ToArray();

        // Large circles first, so small ones stay visible on top of them.
        foreach (var c in mine)
        {
            var at = panel.ToCanvas(_data.Centres.Geographic(c));
            var colour = plan.Colours[c];
            canvas.DrawCircle(at.X, at.Y, plan.CentreRadius(_data.ClusterPopulations[c]), colour.WithAlpha(0.3), new Stroke(FigureText.Darker(colour), 1.4));
        }

        foreach (var c in mine)
        {
            var at = panel.ToCanvas(_data.Centres.Geographic(c));
            canvas.DrawCircle(at.X, at.Y, Math.Max(1.6, plan.FontSize * 0.14), CentreDot, new Stroke(Color.White, 0.8));
        }

        if (!plan.ShowLabels)
        {
            return;
        }

        var font = new Font(plan.FontSize * 0.8, Bold: true);
        foreach (var c in mine)
        {
            var at = panel.ToCanvas(_data.Centres.Geographic(c));
            var text = c.ToString(CultureInfo.InvariantCulture);
            var size = canvas.MeasureText(text, font);
            var r = plan.CentreRadius(_data.ClusterPopulations[c]);
            var (x, y) = (at.X + (r * 0.71) + 2, at.Y - (r * 0.71) - 2);
            canvas.DrawRectangle(x - 1.5, y - size.Height + 1, size.Width + 3, size.Height, Color.White.WithAlpha(0.8));
            canvas.DrawText(text, x, y, new TextStyle(font, FigureText.Darker(plan.Colours[c], 0.55), HorizontalAlignment.Left, VerticalAlignment.Bottom));
        }
    }

    private void DrawScaleBar(MapPanel panel, bool main)
    {
        var fontSize = plan.FontSize * (main ? 0.8 : 0.68);
        var km = FigureText.NiceFloor(Math.Min(panel.Width * (main ? 0.18 : 0.35), 220) / panel.PixelsPerKm);
        var length = km * panel.PixelsPerKm;
        var barHeight = Math.Max(3, fontSize * 0.35);
        var inset = plan.Pad * (main ? 1 : 0.5);
        var font = new Font(fontSize);
        var label = string.Create(CultureInfo.InvariantCulture, $"{km:0.###} km");
        var labelWidth = canvas.MeasureText(label, font).Width;
        var left = main ? panel.Left + inset : panel.Right - inset - Math.Max(length, labelWidth);
        var bottom = panel.Bottom - inset;
        var top = bottom - barHeight - (fontSize * 1.3);
        canvas.DrawRectangle(left - 4, top - 3, Math.Max(length, labelWidth) + 8, bottom - top + 6, Color.White.WithAlpha(0.8));
        canvas.DrawRectangle(left, bottom - barHeight, length / 2, barHeight, FigureText.Ink);
        canvas.DrawRectangle(left + (length / 2), bottom - barHeight, length / 2, barHeight, Color.White, new Stroke(FigureText.Ink, 0.8));
        canvas.DrawRectangle(left, bottom - barHeight, length, barHeight, null, new Stroke(FigureText.Ink, 0.8));
        canvas.DrawText(label, left, bottom - barHeight - 3, new TextStyle(font, FigureText.Ink, HorizontalAlignment.Left, VerticalAlignment.Bottom));
    }

    private void DrawTitle()
    {
        var title = plan.Options.Title ?? $"{_data.ClusterCount} population clusters";
        var (text, font) = FitLine(title, new Font(plan.FontSize * 1.5, Bold: true));
        canvas.DrawText(text, plan.Pad, plan.Pad, new TextStyle(font, FigureText.Ink, HorizontalAlignment.Left, VerticalAlignment.Top));
    }

    /// <summary>
    /// A line of text that fits between the figure's pads: set smaller, down to 70 % of
    /// <paramref name="font"/>, then cut at a word with an ellipsis — never drawn past the edge.
    /// </summary>
    private (string Text, Font Font) FitLine(string text, Font font)
    {
        var available = plan.Options.Width - (2 * plan.Pad);
        var smallest = font.Size * 0.7;
        while (canvas.MeasureText(text, font).Width > available && font.Size > smallest)
        {
            font = font with { Size = Math.Max(smallest, font.Size * 0.94) };
        }

        while (canvas.MeasureText(text, font).Width > available && text.Length > 1)
        {
            var cut = text.LastIndexOf(' ', text.Length - 2);
            text = (cut > 0 ? text[..cut] : text[..^2]).TrimEnd(' ', '…') + "…";
        }

        return (text, font);
    }

    private void DrawCaption(double stride)
    {
        var inv = CultureInfo.InvariantCulture;
        var font = new Font(plan.FontSize * 0.85);
        var lineHeight = font.Size * 1.45;
        var main = plan.Layout.Panels[0];
        var stats = $"{FigureText.Count(_data.Count)} points · {_data.ClusterCount} clusters · total population {FigureText.Count(_data.TotalPopulation)}";
        if (stride != 1)
        {
            stats += stride == 0
                ? " · points omitted from the SVG; hulls and centres use all of them"
                : string.Create(inv, $" · the SVG shows {FigureText.Count(DrawnPoints)} of the points (1 in {stride:0.#}, evenly spaced in input order); hulls and centres use all of them");
        }

        var origin = main.Projection;
        var lat = string.Create(inv, $"{Math.Abs(origin.OriginLatitude):0.0}°{(origin.OriginLatitude >= 0 ? 'N' : 'S')}");
        var lon = string.Create(inv, $"{Math.Abs(origin.OriginLongitude):0.0}°{(origin.OriginLongitude >= 0 ? 'E' : 'W')}");
        var atlasText = (_drewUsLand, _drewWorldLand) switch
        {
            (true, true) => "Outlines: US Census Bureau cartographic boundaries, 1:10m (us-atlas); other countries Natural Earth, 1:50m (world-atlas).",
            (true, false) => "Outlines: US Census Bureau cartographic boundaries, 1:10m (us-atlas).",
            (false, true) => "Coastlines and borders: Natural Earth admin-0 countries, 1:50m (world-atlas).",
            _ => "No outlines: the atlases (US states and counties, countries of the world) have no land in this view.",
        };
        var outlines = $"{atlasText} Equirectangular projection centred on {lat} {lon}, scale true at that latitude"
            + (plan.Layout.Panels.Count > 1 ? "; insets are centred on their own data." : ".");
        string[] lines = plan.Options.Note is { } note ? [stats, outlines, note] : [stats, outlines];
        var y = plan.BodyBottom + (plan.Pad * 0.6);
        foreach (var line in lines)
        {
            var (text, fitted) = FitLine(line, font);
            canvas.DrawText(text, plan.Pad, y, new TextStyle(fitted, FigureText.Muted, HorizontalAlignment.Left, VerticalAlignment.Top));
            y += lineHeight;
        }
    }
}
