using System.Xml.Linq;
using Salsa.Rendering.Charts;
using Salsa.Rendering.Drawing;
using Color = Salsa.Rendering.Drawing.Color;

namespace Salsa.Rendering.Tests.Charts;

public sealed class ChartStyleTests
{
    private static readonly XNamespace Svg = "http://www.w3.org/2000/svg";

    [Fact]
    public void NewPlot_AnyText_IsSetInTheEmbeddedFontNotASystemOne()
    {
        using var plot = ChartStyle.NewPlot("Latency", "ranks", "µs");

        Assert.Equal(EmbeddedFonts.Family, ScottPlot.Fonts.Default);
        Assert.Same(EmbeddedFonts.Typeface(bold: false), ScottPlot.Fonts.GetTypeface(EmbeddedFonts.Family, bold: false, italic: false));
        Assert.Same(EmbeddedFonts.Typeface(bold: true), ScottPlot.Fonts.GetTypeface(EmbeddedFonts.Family, bold: true, italic: false));
        var texts = XDocument.Parse(ChartStyle.RenderSvg(plot, 400, 300)).Descendants(Svg + "text").ToList();
        Assert.Contains(texts, t => t.Value.Trim() == "Latency" && (string?)t.Attribute("font-family") == EmbeddedFonts.Family);
        Assert.Contains(texts, t => t.Value.Trim() == "µs");
    }

    [Fact]
    public void RenderPng_TwoPanels_EachKeepsItsOwnDrawing()
    {
        // A plot clears the area it draws in; unclipped, the second panel would wipe the first.
        var red = new Color(0.9, 0.1, 0.1);
        var blue = new Color(0.1, 0.2, 0.9);
        using var left = Filled(red);
        using var right = Filled(blue);

        var image = PngImage.Decode(ChartStyle.RenderPng([left, right], columns: 2, panelWidth: 300, panelHeight: 200));

        Assert.Equal((600, 200), (image.Width, image.Height));
        Assert.True(PngImage.Distance(image[150, 100], red) < 30, "the left panel lost its drawing");
        Assert.True(PngImage.Distance(image[450, 100], blue) < 30, "the right panel lost its drawing");
    }

    [Fact]
    public void RenderPng_Scale_MultipliesPixelsNotLayout()
    {
        using var plot = ChartStyle.NewPlot("scaled");

        Assert.Equal((640, 400), PngImage.ReadSize(ChartStyle.RenderPng(plot, 320, 200, scale: 2)));
    }

    [Fact]
    public void RenderSvg_Panels_OneDocumentOfTheWholeSize()
    {
        using var a = ChartStyle.NewPlot("first");
        using var b = ChartStyle.NewPlot("second");
        using var c = ChartStyle.NewPlot("third");

        var svg = XDocument.Parse(ChartStyle.RenderSvg([a, b, c], columns: 2, panelWidth: 200, panelHeight: 150));

        Assert.Equal("400", (string?)svg.Root!.Attribute("width"));
        Assert.Equal("300", (string?)svg.Root!.Attribute("height"));
        var titles = svg.Descendants(Svg + "text").Select(t => t.Value.Trim()).ToList();
        Assert.Contains("first", titles);
        Assert.Contains("second", titles);
        Assert.Contains("third", titles);
    }

    [Theory]
    [InlineData(0, 1, 0, 1)]
    [InlineData(0, 0, 0, 0)]
    public void RenderPng_BadFigure_Refused(int panels, int columns, int width, int height)
    {
        var plots = Enumerable.Range(0, panels).Select(_ => ChartStyle.NewPlot()).ToList();

        Assert.ThrowsAny<ArgumentException>(() => ChartStyle.RenderPng(plots, columns, width + 1, height + 1));
        Assert.ThrowsAny<ArgumentException>(() => ChartStyle.RenderPng([ChartStyle.NewPlot()], columns, width, height));
    }

    [Fact]
    public void Log10_NonPositiveOrNotFinite_BecomesNaN()
    {
        Assert.Equal([0, 2, -1, double.NaN, double.NaN, double.NaN], ChartStyle.Log10([1, 100, 0.1, 0, -5, double.PositiveInfinity]));
    }

    [Fact]
    public void ToPlotColor_KeepsChannelsAndAlpha()
    {
        var colour = ChartStyle.ToPlotColor(Color.FromHex("#1f77b480"));

        Assert.Equal((0x1f, 0x77, 0xb4, 0x80), (colour.R, colour.G, colour.B, colour.A));
    }

    private static ScottPlot.Plot Filled(Color colour)
    {
        var plot = ChartStyle.NewPlot();
        plot.DataBackground.Color = colour.ToPlotColor();
        return plot;
    }
}
