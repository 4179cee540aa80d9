using System.Globalization;
using System.Text.RegularExpressions;
using System.Xml.Linq;
using Salsa.Rendering.Atlas;
using Salsa.Rendering.Drawing;
using Salsa.Rendering.Maps;

namespace Salsa.Rendering.Tests;

public sealed partial class CensusMapRendererTests
{
    private static readonly XNamespace Svg = "http://www.w3.org/2000/svg";

    [Fact]
    public void RenderPng_IndianaFixture_HasTheRequestedSize()
    {
        var png = CensusMapRenderer.RenderPng(Clusterings.Indiana, new CensusMapOptions { Width = 1000, Height = 700 });

        Assert.Equal((1000, 700), PngImage.ReadSize(png));
    }

    [Fact]
    public void RenderPng_IndianaFixture_PaintsEachClustersColourWhereItsPointsAre()
    {
        var data = Clusterings.Indiana;
        var options = new CensusMapOptions { Width = 1200, Height = 800 };
        var image = PngImage.Decode(CensusMapRenderer.RenderPng(data, options));
        var layout = CensusMapRenderer.Plan(data, options);
        var colours = ClusterPalette.For(data);

        var matches = new int[data.ClusterCount];
        for (var i = 0; i < data.Count; i++)
        {
            Assert.True(layout.TryLocate(data.Points[i], out var at), $"Point {i} is outside the map.");
            var c = data.Assignments[i];
            if (PngImage.Distance(image[(int)at.X, (int)at.Y], colours[c]) < 40)
            {
                matches[c]++;
            }
        }

        // Centre circles tint the points under them and neighbours overlap, but most points
        // show their own cluster's colour, in every cluster.
        Assert.All(Enumerable.Range(0, data.ClusterCount), c => Assert.True(
            matches[c] >= 0.5 * data.ClusterPointCounts[c],
            $"Cluster {c}: {matches[c]} of {data.ClusterPointCounts[c]} points show its colour."));
        Assert.Equal(6, colours.Distinct().Count());
    }

    [Fact]
    public void RenderSvg_TheSameMapTwiceInOneProcess_IsTheSameDocument()
    {
        // Skia numbers clip paths for the whole process: a document that kept its numbers would
        // depend on what the process drew before, and a reproduced run would differ.
        var options = new CensusMapOptions { Title = "Indiana fixture" };
        var first = CensusMapRenderer.RenderSvg(Clusterings.Indiana, options);
        var second = CensusMapRenderer.RenderSvg(Clusterings.Indiana, options);

        Assert.Equal(first, second);
        Assert.Contains("id=\"cl_1\"", first, StringComparison.Ordinal);
        Assert.All(XDocument.Parse(first).Descendants().Select(e => (string?)e.Attribute("clip-path")).OfType<string>(),
            reference => Assert.Contains(XDocument.Parse(first).Descendants(Svg + "clipPath"), c => reference == $"url(#{(string?)c.Attribute("id")})"));
    }

    [Fact]
    public void RenderSvg_IndianaFixture_IsXmlWithOneHullPerClusterAndIndianasOutline()
    {
        var data = Clusterings.Indiana;
        var options = new CensusMapOptions { Title = "Indiana fixture" };
        var svg = CensusMapRenderer.RenderSvg(data, options);
        var layout = CensusMapRenderer.Plan(data, options);
        var main = Assert.Single(layout.Panels);

        var paths = XDocument.Parse(svg).Descendants(Svg + "path").Select(p => (
            Fill: (string?)p.Attribute("fill") ?? string.Empty,
            FillOpacity: double.Parse((string?)p.Attribute("fill-opacity") ?? "1", CultureInfo.InvariantCulture),
            D: (string?)p.Attribute("d") ?? string.Empty)).ToList();

        // Hulls are the filled paths with the hull's fill opacity (to 8 bits) that start on the map
        // (the legend's sample is beside it).
        var hulls = paths.Where(p => p.Fill != "none" && Math.Abs(p.FillOpacity - MapPainter.HullFillOpacity) < 1 / 255.0 && main.Contains(Vertices(p.D)[0])).ToList();
        Assert.Equal(data.ClusterCount, hulls.Count);

        // Indiana's outline: every vertex of its 1:10m ring lies on a stroked outline path
        // (vertices closer than a third of a unit to the previous one are merged when drawn).
        var outlineVertices = paths.Where(p => p.Fill == "none").SelectMany(p => Vertices(p.D)).ToArray();
        var indiana = UsAtlas.Default.State("18")!.Polygons.MaxBy(p => p.Exterior.Count)!.Exterior;
        for (var i = 0; i < indiana.Count; i += Math.Max(1, indiana.Count / 25))
        {
            var expected = main.ToCanvas(indiana[i]);
            var nearest = outlineVertices.Min(v => Math.Abs(v.X - expected.X) + Math.Abs(v.Y - expected.Y));
            Assert.True(nearest < 0.75, $"Indiana vertex {i} ({expected}) is {nearest:0.00} units from any outline vertex.");
        }

        Assert.True(layout.ShowsCounties);
        Assert.Contains("Indiana fixture", svg, StringComparison.Ordinal);
    }

    [Fact]
    public void RenderSvg_MorePointsThanTheBudget_DrawsAnEvenSubsetAndSaysSo()
    {
        var svg = CensusMapRenderer.RenderSvg(Clusterings.Indiana, new CensusMapOptions { MaxSvgPoints = 250 });

        Assert.Contains("the SVG shows 250 of the points (1 in 4, evenly spaced in input order)", svg, StringComparison.Ordinal);
    }

    [Fact]
    public void Plan_IndianaFixture_FitsTheDataWithEqualScaleAcrossAndUp()
    {
        var data = Clusterings.Indiana;

        var layout = CensusMapRenderer.Plan(data);
        var main = Assert.Single(layout.Panels);

        // The clustering's own plane, and every point on the map.
        Assert.Same(data.Centres.Projection, main.Projection);
        Assert.All(data.Points, p => Assert.True(layout.TryLocate(p, out _)));

        // One km north is as long as one km east at the projection's origin latitude.
        var origin = new GeoPoint(main.Projection.OriginLatitude, main.Projection.OriginLongitude);
        var (east, north) = (main.Projection.Inverse(1, 0), main.Projection.Inverse(0, 1));
        var o = main.ToCanvas(origin);
        var e = main.ToCanvas(new GeoPoint(east.Latitude, east.Longitude));
        var n = main.ToCanvas(new GeoPoint(north.Latitude, north.Longitude));
        Assert.Equal(e.X - o.X, o.Y - n.Y, 9);
        Assert.Equal(main.PixelsPerKm, e.X - o.X, 9);
    }

    [Fact]
    public void Plan_GeographicCentres_AreAcceptedLikePlanarOnes()
    {
        var planar = Clusterings.Indiana;
        var geographic = new ClusteredPoints(planar.Points, planar.Weights, planar.Assignments,
            new GeographicCentres(Enumerable.Range(0, planar.ClusterCount).Select(planar.Centres.Geographic)));

        var svg = CensusMapRenderer.RenderSvg(geographic);

        Assert.NotNull(XDocument.Parse(svg).Root);
        Assert.Null(geographic.Centres.Projection);
    }

    [Fact]
    public void RenderPng_NationalSet_RendersEveryPointWithInsets()
    {
        var data = Clusterings.National;

        var png = CensusMapRenderer.RenderPng(data);
        var svg = CensusMapRenderer.RenderSvg(data);
        var layout = CensusMapRenderer.Plan(data);

        Assert.Equal(242_335, data.Count);
        Assert.Equal((1400, 900), PngImage.ReadSize(png));
        Assert.Equal([UsRegion.Conterminous, UsRegion.Alaska, UsRegion.Hawaii, UsRegion.PuertoRico], layout.Panels.Select(p => p.Region!.Value));
        Assert.False(layout.ShowsCounties);
        Assert.Equal(UsRegion.Alaska, layout.PanelFor(new GeoPoint(61.2, -149.9)).Region);
        Assert.Contains("the SVG shows 20,000 of the points", svg, StringComparison.Ordinal);
        Assert.NotNull(XDocument.Parse(svg).Root);
    }

    [Fact]
    public void Plan_SingleViewLayout_FitsAllPartsInOneView()
    {
        var layout = CensusMapRenderer.Plan(Clusterings.National, new CensusMapOptions { Layout = MapLayoutMode.SingleView });

        var panel = Assert.Single(layout.Panels);
        Assert.Null(panel.Region);
        Assert.True(layout.TryLocate(new GeoPoint(21.3, -157.8), out _));
        Assert.True(layout.TryLocate(new GeoPoint(18.4, -66.1), out _));
        Assert.True(layout.TryLocate(new GeoPoint(64.8, -147.7), out _));
    }

    [Fact]
    public void PlacesOutsideTheUs_OneViewOfTheirOwnExtent_NoInsets_OverTheWorldsCoastlinesAndBorders()
    {
        GeoPoint[] europe = [new(48.86, 2.35), new(52.52, 13.40), new(41.90, 12.50), new(40.42, -3.70), new(59.33, 18.07)];
        var data = Geographic(europe, [0, 0, 1, 1, 0]);

        var layout = CensusMapRenderer.Plan(data);
        var panel = Assert.Single(layout.Panels);
        var svg = CensusMapRenderer.RenderSvg(data);
        var png = PngImage.Decode(CensusMapRenderer.RenderPng(data));

        Assert.Contains("Coastlines and borders: Natural Earth admin-0 countries, 1:50m (world-atlas).", svg, StringComparison.Ordinal);
        Assert.True(panel.WidthKm < 4000, $"{panel.WidthKm} km across");

        // Land is drawn as land and sea as sea, away from the points, hulls and labels: the Alps
        // and the Massif Central, the Bay of Biscay and the Gulf of Lion.
        var land = Color.FromHex("#ffffff");
        var sea = Color.FromHex("#e6ebf0");
        foreach (var (place, expected) in new[] { (new GeoPoint(46.8, 8.2), land), (new GeoPoint(45.3, 2.9), land), (new GeoPoint(45.0, -4.5), sea), (new GeoPoint(42.6, 5.0), sea) })
        {
            Assert.True(layout.TryLocate(place, out var at), $"{place} is outside the map.");
            var pixel = png[(int)at.X, (int)at.Y];
            Assert.True(PngImage.Distance(pixel, expected) <= 3, $"{place} at ({at.X:0}, {at.Y:0}) is {pixel}, not {expected}.");
        }
    }

    [Fact]
    public void PlacesInTheUs_CanadaAndMexicoDrawnAsContext_AndTheCaptionCreditsBothAtlases()
    {
        GeoPoint[] border = [new(47.6, -122.3), new(45.5, -122.7), new(32.7, -117.2), new(33.4, -112.1)];
        var data = Geographic(border, [0, 0, 1, 1]);

        var options = new CensusMapOptions { Margin = 0.25 };
        var layout = CensusMapRenderer.Plan(data, options);
        var svg = CensusMapRenderer.RenderSvg(data, options);
        var png = PngImage.Decode(CensusMapRenderer.RenderPng(data, options));

        Assert.Contains("Outlines: US Census Bureau cartographic boundaries, 1:10m (us-atlas); other countries Natural Earth, 1:50m (world-atlas).", svg, StringComparison.Ordinal);

        // British Columbia and Sonora: context land, not sea.
        var context = Color.FromHex("#f3f3f0");
        foreach (var place in new[] { new GeoPoint(50.0, -120.0), new GeoPoint(30.0, -112.0) })
        {
            Assert.True(layout.TryLocate(place, out var at), $"{place} is outside the map.");
            var pixel = png[(int)at.X, (int)at.Y];
            Assert.True(PngImage.Distance(pixel, context) <= 3, $"{place} at ({at.X:0}, {at.Y:0}) is {pixel}, not {context}.");
        }
    }

    [Fact]
    public void OpenSea_NoLandInView_TheCaptionSaysSo()
    {
        GeoPoint[] pacific = [new(-30.0, -140.0), new(-30.5, -140.5), new(-29.5, -139.6)];
        var data = Geographic(pacific, [0, 0, 1]);

        var svg = CensusMapRenderer.RenderSvg(data);

        Assert.Contains("No outlines: the atlases (US states and counties, countries of the world) have no land in this view.", svg, StringComparison.Ordinal);
    }

    [Fact]
    public void PlacesOutsideTheUs_WhereABoxTestWouldSeeAlaska_StillOneView()
    {
        // Europe, and Kamchatka north of 50° and east of 170°E, inside Alaska's box.
        GeoPoint[] places = [new(48.86, 2.35), new(52.52, 13.40), new(41.90, 12.50), new(59.33, 18.07), new(55.00, 170.50), new(56.00, 171.00)];
        var data = Geographic(places, [0, 0, 0, 0, 1, 1]);

        var layout = CensusMapRenderer.Plan(data);

        var panel = Assert.Single(layout.Panels);
        Assert.Null(panel.Region);
        Assert.All(places, p => Assert.True(layout.TryLocate(p, out _), p.ToString()));
    }

    [Fact]
    public void PlacesAcrossTheAntimeridian_FramedWhereTheyAre_NotAcrossTheGlobe()
    {
        // Fiji: 177°E to 179.9°W.
        GeoPoint[] places = [new(-17.8, 177.4), new(-18.1, 178.4), new(-16.6, 179.9), new(-16.8, -179.9), new(-18.0, -178.8)];
        var data = Geographic(places, [0, 0, 1, 1, 1]);

        var panel = Assert.Single(CensusMapRenderer.Plan(data).Panels);

        Assert.InRange(panel.Projection.OriginLongitude, 177, 180);
        Assert.True(Math.Max(panel.WidthKm, panel.HeightKm) < 1500, $"{panel.WidthKm} × {panel.HeightKm} km");
    }

    private static ClusteredPoints Geographic(GeoPoint[] places, int[] assignments)
    {
        var clusters = assignments.Max() + 1;
        var centres = Enumerable.Range(0, clusters).Select(k => places.Where((_, i) => assignments[i] == k).First());
        return new ClusteredPoints(places, [.. places.Select(_ => 1000.0)], assignments, new GeographicCentres(centres));
    }

    private static Point[] Vertices(string d) =>
        [.. PathVertex().Matches(d).Select(m => new Point(double.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture), double.Parse(m.Groups[2].Value, CultureInfo.InvariantCulture)))];

    [GeneratedRegex(@"[ML]\s*(-?[0-9.]+(?:e-?[0-9]+)?)[ ,]+(-?[0-9.]+(?:e-?[0-9]+)?)")]
    private static partial Regex PathVertex();
}
