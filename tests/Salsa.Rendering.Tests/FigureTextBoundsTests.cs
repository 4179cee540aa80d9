using Salsa.Rendering.Charts;
using Salsa.Rendering.Drawing;
using Salsa.Rendering.Maps;
using Salsa.Rendering.Scatter;

namespace Salsa.Rendering.Tests;

/// <summary>
/// Every kind of figure keeps its text inside the image: a title or caption longer than the figure
/// is wide is set smaller or broken into lines (charts, the scatter plot) or cut at a word (the
/// map's one-line title and caption), never drawn past an edge — where a glyph cut by the edge
/// would leave ink in the outermost columns.
/// </summary>
public sealed class FigureTextBoundsTests
{
    private const string LongTitle =
        "Chemical space — medoids of the largest Butina clusters, coloured by annealing cluster, drawn from forty thousand compounds of the user's own library";

    // The columns at each side a glyph cut by the edge would touch.
    private const int Edge = 3;

    [Theory]
    [InlineData(900, 760)]
    [InlineData(480, 400)]
    public void Scatter_ATitleWiderThanTheFigure_IsDrawnInsideIt(int width, int height)
    {
        var data = new ScatterData([0.0, 0.0, 1.0, 1.0, 2.0, 0.5], [0, 1, 2]);
        var options = new ScatterOptions { Width = width, Height = height, Title = LongTitle };

        var image = PngImage.Decode(ScatterRenderer.RenderPng(data, options));

        Assert.Equal(0, InkAtTheSides(image, top: 0, bottom: height / 6));
        AssertEveryWordDrawn(ScatterRenderer.RenderSvg(data, options));
    }

    [Fact]
    public void Chart_ATitleWiderThanThePanel_IsDrawnInsideIt()
    {
        using var plot = ChartStyle.NewPlot(LongTitle, "ranks", "latency (µs)");
        plot.Add.Scatter(new double[] { 1, 2, 3 }, new double[] { 3, 1, 2 });

        var image = PngImage.Decode(ChartStyle.RenderPng(plot, 420, 300));

        Assert.Equal(0, InkAtTheSides(image, top: 0, bottom: 60));
        using var again = ChartStyle.NewPlot(LongTitle, "ranks", "latency (µs)");
        AssertEveryWordDrawn(ChartStyle.RenderSvg(again, 420, 300));
    }

    [Fact]
    public void Map_ATitleAndNoteWiderThanTheFigure_StayInsideIt()
    {
        var options = new CensusMapOptions { Width = 520, Height = 420, Title = LongTitle, Note = LongTitle + " — and a note as long again." };

        var image = PngImage.Decode(CensusMapRenderer.RenderPng(Clusterings.Indiana, options));

        // The title's band and the caption's lines at the bottom.
        Assert.Equal(0, InkAtTheSides(image, top: 0, bottom: 50));
        Assert.Equal(0, InkAtTheSides(image, top: image.Height - 60, bottom: image.Height));
    }

    /// <summary>Pixels far from white in the <see cref="Edge"/> outermost columns at each side, between the rows given.</summary>
    private static int InkAtTheSides(PngImage image, int top, int bottom)
    {
        var ink = 0;
        for (var y = top; y < bottom; y++)
        {
            for (var x = 0; x < Edge; x++)
            {
                ink += PngImage.Distance(image[x, y], Color.White) > 96 ? 1 : 0;
                ink += PngImage.Distance(image[image.Width - 1 - x, y], Color.White) > 96 ? 1 : 0;
            }
        }

        return ink;
    }

    /// <summary>The title is broken or set smaller, not shortened: every word of it is in the SVG's text.</summary>
    private static void AssertEveryWordDrawn(string svg)
    {
        var text = string.Join(' ', System.Xml.Linq.XDocument.Parse(svg).Descendants().Where(e => e.Name.LocalName == "text").Select(e => e.Value));
        foreach (var word in LongTitle.Split(' '))
        {
            Assert.Contains(word, text, StringComparison.Ordinal);
        }
    }
}
