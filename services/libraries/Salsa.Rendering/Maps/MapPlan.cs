using Salsa.DataFiles;
using Salsa.Rendering.Atlas;
using Salsa.Rendering.Drawing;

namespace Salsa.Rendering.Maps;

/// <summary>
/// The layout of a census map, worked out before anything is drawn so PNG and SVG share it:
/// title band, main view, a side column (insets on top, legend below) and a caption band.
/// </summary>
internal sealed class MapPlan
{
    /// <summary>Share of the main view's data area the centre circles cover together.</summary>
    private const double CentreAreaShare = 0.08;

    /// <summary>Points tested against the state outlines to find the states the data is in.</summary>
    private const int FocusSample = 20_000;

    private MapPlan(ClusteredPoints data, CensusMapOptions options, UsAtlas atlas, TopoFeature[] focusStates, MapLayout layout, int[] pointPanel, IReadOnlyList<Color> colours, double fontSize, double pad, double sideLeft, double sideWidth, double legendTop, double bodyBottom, double dataAreaPx)
    {
        (Data, Options, Atlas, Layout, PointPanel, Colours, FontSize, Pad) = (data, options, atlas, layout, pointPanel, colours, fontSize, pad);
        (SideLeft, SideWidth, LegendTop, BodyBottom) = (sideLeft, sideWidth, legendTop, bodyBottom);
        MaxPopulation = data.ClusterPopulations.DefaultIfEmpty(0).Max();
        var total = data.TotalPopulation;
        var limit = 0.1 * Math.Min(layout.Panels[0].Width, layout.Panels[0].Height);
        CentreRadiusMax = MaxPopulation > 0 && total > 0
            ? Math.Clamp(Math.Sqrt(CentreAreaShare * dataAreaPx * MaxPopulation / (Math.PI * total)), Math.Min(6, limit), limit)
            : 6;
        ShowLabels = options.ShowClusterLabels ?? data.ClusterCount <= 30;
        FocusStates = focusStates;
    }

    public ClusteredPoints Data { get; }

    public CensusMapOptions Options { get; }

    public UsAtlas Atlas { get; }

    /// <summary>The countries beyond the US: context around US data, the land itself under places elsewhere.</summary>
    public required WorldAtlas World { get; init; }

    /// <summary>Whether (nearly) all the points are inside the US atlas's states.</summary>
    public bool InUs { get; init; }

    /// <summary>The states the points are in: drawn as land in full, the others as context.</summary>
    public IReadOnlyList<TopoFeature> FocusStates { get; }

    public MapLayout Layout { get; }

    /// <summary>Each point's panel index.</summary>
    public int[] PointPanel { get; }

    public IReadOnlyList<Color> Colours { get; }

    /// <summary>Base text size in canvas units.</summary>
    public double FontSize { get; }

    public double Pad { get; }

    public double SideLeft { get; }

    public double SideWidth { get; }

    /// <summary>Where the legend starts in the side column (below the insets).</summary>
    public double LegendTop { get; }

    /// <summary>Where the map body ends and the caption band starts.</summary>
    public double BodyBottom { get; }

    public double MaxPopulation { get; }

    /// <summary>Radius of the most populous cluster's centre circle; others scale by √population.</summary>
    public double CentreRadiusMax { get; }

    public bool ShowLabels { get; }

    public double CentreRadius(double population) =>
        MaxPopulation > 0 ? Math.Max(2.5, CentreRadiusMax * Math.Sqrt(population / MaxPopulation)) : 2.5;

    public static MapPlan Create(ClusteredPoints data, CensusMapOptions options, UsAtlas atlas, WorldAtlas world)
    {
        var (width, height) = (options.Width, options.Height);
        var fontSize = Math.Clamp(Math.Min(width / 1400.0, height / 900.0) * 13, 8, 26);
        var pad = Math.Max(8, fontSize * 0.9);
        var titleBand = pad + (fontSize * 1.5 * 1.35) + (pad * 0.6);
        var captionLines = options.Note is null ? 2 : 3;
        var captionBand = (captionLines * fontSize * 0.85 * 1.45) + pad;
        var sideWidth = Math.Clamp(width * 0.19, Math.Min(170, width * 0.3), 360);
        var mapRight = width - pad - sideWidth - pad;
        var bodyTop = titleBand;
        var bodyBottom = height - captionBand;
        var sideLeft = mapRight + pad;

        // Which part of the US each point belongs to, and whether they get insets: only when the
        // points are in the US (a user's places elsewhere get one view of their own extent).
        var (focusStates, inUs) = FindFocusStates(data, atlas);
        var points = data.PointSpan;
        var regions = new UsRegion[points.Length];
        var present = new bool[UsRegions.All.Length];
        for (var i = 0; i < points.Length; i++)
        {
            regions[i] = UsRegions.Of(points[i]);
            present[(int)regions[i]] = true;
        }

        var outlying = UsRegions.All.Where(r => r != UsRegion.Conterminous && present[(int)r]).ToArray();
        var insets = (options.Layout == MapLayoutMode.Insets || (options.Layout == MapLayoutMode.Auto && inUs)) && present[(int)UsRegion.Conterminous] && outlying.Length > 0;

        var panels = new List<MapPanel>();
        var pointPanel = new int[points.Length];
        double dataAreaPx;
        var legendTop = bodyTop;
        if (!insets)
        {
            var origin = data.Centres.Projection ?? WeightedCentre(data, _ => true);
            var main = Fit(null, "Map", pad, bodyTop, mapRight - pad, bodyBottom - bodyTop, origin, data, _ => true, options.Margin, out dataAreaPx);
            panels.Add(main);
        }
        else
        {
            bool InMain(int i) => regions[i] == UsRegion.Conterminous;
            var origin = data.Centres.Projection ?? WeightedCentre(data, InMain);
            panels.Add(Fit(UsRegion.Conterminous, UsRegions.Name(UsRegion.Conterminous), pad, bodyTop, mapRight - pad, bodyBottom - bodyTop, origin, data, InMain, options.Margin, out dataAreaPx));

            // Insets stack at the top of the side column, each as tall as its data's shape asks,
            // shrunk together when they would take more than 60% of the column.
            var headerHeight = fontSize * 0.85 * 1.5;
            var wanted = outlying.Select(r =>
            {
                var projection = WeightedCentre(data, i => regions[i] == r);
                var (w, h) = Extent(data, i => regions[i] == r, projection, options.Margin);
                return Math.Clamp(sideWidth * h / w, 0.3 * sideWidth, 0.95 * sideWidth);
            }).ToArray();
            var available = 0.6 * (bodyBottom - bodyTop);
            var shrink = Math.Min(1, (available - (outlying.Length * (headerHeight + pad))) / wanted.Sum());
            var top = bodyTop;
            for (var r = 0; r < outlying.Length; r++)
            {
                var region = outlying[r];
                bool InRegion(int i) => regions[i] == region;
                top += headerHeight;
                var h = Math.Max(20, wanted[r] * shrink);
                panels.Add(Fit(region, UsRegions.Name(region), sideLeft, top, sideWidth, h, WeightedCentre(data, InRegion), data, InRegion, options.Margin, out _));
                top += h + pad;
            }

            legendTop = top;
        }

        var panelOfRegion = UsRegions.All.Select(r => Math.Max(0, panels.FindIndex(p => p.Region == r))).ToArray();
        for (var i = 0; i < points.Length; i++)
        {
            pointPanel[i] = insets ? panelOfRegion[(int)regions[i]] : 0;
        }

        var showCounties = options.ShowCounties ?? Math.Max(panels[0].WidthKm, panels[0].HeightKm) < options.CountyViewKm;
        var layout = new MapLayout(width, height, panels, showCounties);
        return new MapPlan(data, options, atlas, focusStates, layout, pointPanel, ClusterPalette.For(data), fontSize, pad, sideLeft, sideWidth, legendTop, bodyBottom, dataAreaPx) { World = world, InUs = inUs };
    }

    /// <summary>
    /// States holding at least 0.1% (and 2) of an evenly strided sample of the points, and whether
    /// (nearly) all the sample is inside the atlas's states. Testing every point of the national set
    /// would cost seconds; the share keeps a neighbour out when the 1:10m outline puts a few border
    /// points on its side of a river.
    /// </summary>
    private static (TopoFeature[] States, bool InUs) FindFocusStates(ClusteredPoints data, UsAtlas atlas)
    {
        var points = data.PointSpan;
        var step = Math.Max(1, points.Length / FocusSample);
        var counts = new Dictionary<TopoFeature, int>();
        var sampled = 0;
        TopoFeature? last = null;
        for (var i = 0; i < points.Length; i += step)
        {
            sampled++;
            var p = points[i];

            // Neighbouring points are mostly in the same state: try the last one first.
            if (last is null || !RingGeometry.Contains(last, p))
            {
                last = atlas.States.FirstOrDefault(s => RingGeometry.Contains(s, p));
            }

            if (last is not null)
            {
                counts[last] = counts.GetValueOrDefault(last) + 1;
            }
        }

        var threshold = sampled < 200 ? 1 : Math.Max(2, sampled / 1000);
        var inside = counts.Values.Sum();
        return ([.. atlas.States.Where(s => counts.GetValueOrDefault(s) >= threshold)], inside >= 0.9 * sampled);
    }

    /// <summary>A panel over the rectangle, centred on the selected points (and the centres among them) with the margin added.</summary>
    private static MapPanel Fit(UsRegion? region, string name, double left, double top, double width, double height, EquirectangularProjection projection, ClusteredPoints data, Func<int, bool> include, double margin, out double dataAreaPx)
    {
        var (minX, minY, maxX, maxY) = Bounds(data, include, projection);
        var (w, h) = Padded(maxX - minX, maxY - minY, margin);
        var scale = Math.Min(width / w, height / h);
        dataAreaPx = w * h * scale * scale;
        return new MapPanel(region, name, left, top, width, height, projection, scale, (minX + maxX) / 2, (minY + maxY) / 2);
    }

    private static (double Width, double Height) Extent(ClusteredPoints data, Func<int, bool> include, EquirectangularProjection projection, double margin)
    {
        var (minX, minY, maxX, maxY) = Bounds(data, include, projection);
        return Padded(maxX - minX, maxY - minY, margin);
    }

    /// <summary>The extent plus the margin on each side; at least 10 km, so a lone point gets a neighbourhood.</summary>
    private static (double Width, double Height) Padded(double w, double h, double margin)
    {
        var m = (margin * Math.Max(w, h)) + 1;
        return (Math.Max(w + (2 * m), 10), Math.Max(h + (2 * m), 10));
    }

    /// <summary>
    /// The plane extent of the selected points that carry weight (all selected points when none
    /// does): a view fits where people are, so an unpopulated outlier such as a water-only block
    /// group on a remote islet does not shrink the map.
    /// </summary>
    private static (double MinX, double MinY, double MaxX, double MaxY) Bounds(ClusteredPoints data, Func<int, bool> include, EquirectangularProjection projection)
    {
        var points = data.PointSpan;
        var weights = data.WeightSpan;
        foreach (var weightedOnly in new[] { true, false })
        {
            double minX = double.PositiveInfinity, minY = double.PositiveInfinity, maxX = double.NegativeInfinity, maxY = double.NegativeInfinity;
            for (var i = 0; i < points.Length; i++)
            {
                if (include(i) && (!weightedOnly || weights[i] > 0))
                {
                    var (x, y) = MapPanel.ToPlane(projection, points[i]);
                    (minX, maxX) = (Math.Min(minX, x), Math.Max(maxX, x));
                    (minY, maxY) = (Math.Min(minY, y), Math.Max(maxY, y));
                }
            }

            if (minX <= maxX)
            {
                return (minX, minY, maxX, maxY);
            }
        }

        // No points: a neighbourhood of the origin.
        return (-50, -50, 50, 50);
    }

    /// <summary>The population-weighted mean position of the selected points (the plain mean when they weigh nothing).</summary>
    private static EquirectangularProjection WeightedCentre(ClusteredPoints data, Func<int, bool> include)
    {
        var points = data.PointSpan.ToArray();
        var weights = data.WeightSpan.ToArray();
        var selected = Enumerable.Range(0, points.Length).Where(include).Select(i => (points[i].Latitude, points[i].Longitude, weights[i])).ToList();
        return selected.Count == 0 ? new EquirectangularProjection(39.8, -98.6) : EquirectangularProjection.CentredOn(selected);
    }
}
