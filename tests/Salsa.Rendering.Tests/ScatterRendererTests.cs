using System.Globalization;
using System.Xml.Linq;
using Salsa.DataFiles;
using Salsa.Rendering.Drawing;
using Salsa.Rendering.Scatter;

namespace Salsa.Rendering.Tests;

public sealed class ScatterRendererTests
{
    private static readonly Lazy<ScatterData> s_gmm = new(() =>
    {
        var rows = File.ReadAllLines(DataDirectory.Default.PathOf("fixtures", "gmm2d.csv")).Skip(1).Select(l => l.Split(',')).ToArray();
        var xy = rows.SelectMany(f => new[] { double.Parse(f[0], CultureInfo.InvariantCulture), double.Parse(f[1], CultureInfo.InvariantCulture) }).ToArray();
        return new ScatterData(xy, [.. rows.Select(f => int.Parse(f[3], CultureInfo.InvariantCulture))], [new(0, "first"), new(1, "second")]);
    });

    [Fact]
    public void RenderPng_GmmFixture_HasTheRequestedSizeAndClusterColours()
    {
        var data = s_gmm.Value;
        var options = new ScatterOptions { Width = 700, Height = 600 };

        var image = PngImage.Decode(ScatterRenderer.RenderPng(data, options));

        Assert.Equal((700, 600), (image.Width, image.Height));
        var plot = ScatterRenderer.Plan(data, options);
        var found = Enumerable.Range(0, 5).Count(c => Enumerable.Range(0, data.Count).Any(i =>
        {
            var at = plot.ToCanvas(data.X(i), data.Y(i));
            return data.Clusters![i] == c && PngImage.Distance(image[(int)at.X, (int)at.Y], Palette.Category(c)) < 40;
        }));
        Assert.Equal(5, found);
    }

    [Fact]
    public void RenderSvg_GmmFixture_IsXmlWithTitleLegendAndLabels()
    {
        var svg = ScatterRenderer.RenderSvg(s_gmm.Value, new ScatterOptions { Title = "Five Gaussians", ClusterNames = ["origin"] });

        var texts = XDocument.Parse(svg).Descendants(XName.Get("text", "http://www.w3.org/2000/svg")).Select(t => t.Value.Trim()).ToList();
        Assert.Contains("Five Gaussians", texts);
        Assert.Contains("origin", texts);
        Assert.Contains("cluster 4", texts);
        Assert.Contains("second", texts);
    }

    [Theory]
    [InlineData(1.0)]
    [InlineData(0.05)]
    [InlineData(20.0)]
    public void Plan_AnyDataShape_KeepsEqualAspectAndShowsEveryPoint(double yStretch)
    {
        var gmm = s_gmm.Value;
        var data = new ScatterData([.. Enumerable.Range(0, gmm.Count).SelectMany(i => new[] { gmm.X(i), gmm.Y(i) * yStretch })], gmm.Clusters);

        var plot = ScatterRenderer.Plan(data, new ScatterOptions { Width = 900, Height = 500 });

        // A unit square of data is a square on the canvas.
        var origin = plot.ToCanvas(0, 0);
        var corner = plot.ToCanvas(1, 1);
        Assert.Equal(corner.X - origin.X, origin.Y - corner.Y, 9);
        Assert.Equal(plot.PixelsPerUnitX, plot.PixelsPerUnitY, 9);
        Assert.All(Enumerable.Range(0, data.Count), i =>
        {
            var p = plot.ToCanvas(data.X(i), data.Y(i));
            Assert.InRange(p.X, plot.Left, plot.Right);
            Assert.InRange(p.Y, plot.Top, plot.Bottom);
        });
    }

    [Fact]
    public void RenderPng_NoClustersAndOnePoint_StillDraws()
    {
        var png = ScatterRenderer.RenderPng(new ScatterData([3.0, 4.0]), new ScatterOptions { Width = 300, Height = 200 });

        Assert.Equal((300, 200), PngImage.ReadSize(png));
    }
}
