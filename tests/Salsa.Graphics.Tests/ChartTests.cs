using System.Xml.Linq;
using Salsa.Graphics.Charts;

namespace Salsa.Graphics.Tests;

public sealed class ChartTests
{
    private static readonly XNamespace Svg = "http://www.w3.org/2000/svg";

    private static readonly double[] Sizes = [8, 64, 512, 4096, 32768, 262144, 2097152];

    [Fact]
    public void RenderPngBytes_LogAxes_IsPngOfRequestedSize()
    {
        var png = LatencyChart().RenderPngBytes(900, 560);

        Assert.Equal((900, 560), PngHeader.ReadSize(png));
    }

    [Fact]
    public void RenderPngBytes_Scale2_DoublesThePixels()
    {
        var png = LatencyChart().RenderPngBytes(450, 280, scale: 2);

        Assert.Equal((900, 560), PngHeader.ReadSize(png));
    }

    [Fact]
    public void RenderSvgString_LogAxes_HasTitlesDecadeLabelsAndLegend()
    {
        var texts = SvgTexts(LatencyChart().RenderSvgString(900, 560));

        Assert.Contains("Allreduce latency", texts);
        Assert.Contains("message size (bytes)", texts);
        Assert.Contains("latency (µs)", texts);
        Assert.Contains("10⁵", texts);
        Assert.Contains("seed paper", texts);
    }

    [Fact]
    public void RenderSvg_Path_WritesSvgFile()
    {
        var path = Path.Combine(Path.GetTempPath(), $"salsa-chart-{Guid.NewGuid():N}.svg");
        try
        {
            LatencyChart().RenderSvg(path, 640, 400);

            var root = XDocument.Load(path).Root!;
            Assert.Equal(Svg + "svg", root.Name);
            Assert.Equal("640", (string?)root.Attribute("width"));
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public void RenderPng_Stream_WritesPng()
    {
        using var stream = new MemoryStream();

        LatencyChart().RenderPng(stream, 320, 200);

        Assert.Equal((320, 200), PngHeader.ReadSize(stream.ToArray()));
    }

    [Fact]
    public void AddCategoricalScatter_100kPoints_RendersEveryCluster()
    {
        const int n = 100_000;
        var random = new Random(7);
        var x = new double[n];
        var y = new double[n];
        var cluster = new int[n];
        for (var i = 0; i < n; i++)
        {
            cluster[i] = i % 3;
            x[i] = (cluster[i] * 10) + random.NextDouble();
            y[i] = random.NextDouble();
        }

        var chart = new Chart("100k", "x", "y") { Legend = LegendPosition.None };
        chart.AddCategoricalScatter(x, y, cluster, markerSize: 2);
        using var canvas = Canvas.CreateRaster(600, 300);
        chart.Draw(canvas);

        var seen = Colours(canvas);
        Assert.Contains(Palette.Category(0), seen);
        Assert.Contains(Palette.Category(1), seen);
        Assert.Contains(Palette.Category(2), seen);
        Assert.Equal((600, 300), PngHeader.ReadSize(canvas.ToPngBytes()));
    }

    [Fact]
    public void AddCategoricalScatter_MoreCategoriesThanLegendRows_SummarisesTheRest()
    {
        var count = CategoricalScatterSeries.MaxLegendCategories + 6;
        var values = Enumerable.Range(0, count).Select(i => (double)i).ToArray();
        var chart = new Chart();
        chart.AddCategoricalScatter(values, values, Enumerable.Range(0, count).ToArray());

        var texts = SvgTexts(chart.RenderSvgString(800, 600));

        Assert.Contains("cluster 0", texts);
        Assert.Contains("… 6 more", texts);
    }

    [Fact]
    public void AddLine_NaNAndNonPositiveOnLogAxis_AreSkipped()
    {
        var chart = new Chart("gaps", "x", "y") { YScale = Scale.Log10 };
        chart.AddLine("with gaps", [1, 2, 3, 4, 5], [1, double.NaN, 0, -3, 100]);

        var texts = SvgTexts(chart.RenderSvgString(400, 300));

        Assert.Contains("100", texts);
        Assert.Equal((400, 300), PngHeader.ReadSize(chart.RenderPngBytes(400, 300)));
    }

    [Fact]
    public void AddBars_SingleBar_FillsPlotCentreWithSeriesColour()
    {
        var chart = new Chart { Legend = LegendPosition.None };
        var bars = chart.AddBars("only", ["a"], [1.0]);
        using var canvas = Canvas.CreateRaster(400, 300);

        chart.Draw(canvas);

        Assert.Equal(Palette.Category(0), bars.Color);
        Assert.Equal(bars.Color, canvas.GetPixel(200, 150));
    }

    [Fact]
    public void AddBars_GroupedWithErrors_RendersCategoryLabels()
    {
        var chart = new Chart("Latency per implementation per rank count", "ranks", "latency (µs)");
        string[] ranks = ["1", "2", "4", "8"];
        chart.AddBars("Salsa.Ccr", ranks, [1.2, 2.0, 3.1, 4.5], errors: [0.1, 0.2, 0.2, 0.3]);
        chart.AddBars("TPL Dataflow", ranks, [2.2, 3.9, 5.6, 8.1]);

        var texts = SvgTexts(chart.RenderSvgString(640, 400));

        Assert.Contains("8", texts);
        Assert.Contains("TPL Dataflow", texts);
    }

    [Fact]
    public void Draw_BarsAndLines_ThrowsInvalidOperation()
    {
        var chart = new Chart();
        chart.AddBars("bars", ["a"], [1.0]);
        chart.AddLine("line", [0.0], [1.0]);

        Assert.Throws<InvalidOperationException>(() => chart.RenderPngBytes(100, 100));
    }

    [Fact]
    public void AddLine_MismatchedLengths_ThrowsWithoutUsingAColour()
    {
        var chart = new Chart();

        Assert.Throws<ArgumentException>(() => chart.AddLine("bad", [1.0, 2.0], [1.0]));
        var line = chart.AddLine("good", [1.0], [1.0]);

        Assert.Equal(Palette.Category(0), line.Color);
    }

    [Fact]
    public void Draw_LogAxisWithNonPositiveLimits_ThrowsInvalidOperation()
    {
        var chart = new Chart { XScale = Scale.Log10, XLimits = new AxisLimits(0, 10) };
        chart.AddLine("line", [1.0], [1.0]);

        Assert.Throws<InvalidOperationException>(() => chart.RenderPngBytes(100, 100));
    }

    [Fact]
    public void AddBars_ChartXScaleLog_CategoryAxisStaysLinear()
    {
        var chart = new Chart { XScale = Scale.Log10, YScale = Scale.Log10 };
        chart.AddBars("latency", ["1", "2", "4"], [3.0, 30, 300]);

        var texts = SvgTexts(chart.RenderSvgString(400, 300));

        Assert.Contains("4", texts);
        Assert.Contains("100", texts);
    }

    [Fact]
    public void FontSize_Zero_ThrowsArgumentOutOfRange()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new Chart { FontSize = 0 });
    }

    [Fact]
    public void RenderPngBytes_EmptyChart_Renders()
    {
        Assert.Equal((200, 100), PngHeader.ReadSize(new Chart("empty").RenderPngBytes(200, 100)));
    }

    private static Chart LatencyChart()
    {
        var chart = new Chart("Allreduce latency", "message size (bytes)", "latency (µs)") { XScale = Scale.Log10, YScale = Scale.Log10 };
        var ours = Sizes.Select(s => 2.1 + (s * 0.00042)).ToArray();
        chart.AddLine("Salsa.Ccr", Sizes, ours, new SeriesStyle { Marker = MarkerShape.Circle }, yErrors: ours.Select(v => v * 0.1).ToArray());
        chart.AddLine("TPL Dataflow", Sizes, Sizes.Select(s => 6.5 + (s * 0.00061)).ToArray(), new SeriesStyle { Marker = MarkerShape.Square });
        chart.AddLine("seed paper", Sizes, Sizes.Select(s => 4.0 + (s * 0.00055)).ToArray(), new SeriesStyle { Color = chart.Series[0].Color, Dash = LineDash.Dashed });
        return chart;
    }

    private static HashSet<string> SvgTexts(string svg) =>
        [.. XDocument.Parse(svg).Descendants(Svg + "text").Select(t => t.Value.Trim())];

    private static HashSet<Color> Colours(Canvas canvas)
    {
        var seen = new HashSet<Color>();
        for (var y = 0; y < canvas.Height; y += 2)
        {
            for (var x = 0; x < canvas.Width; x += 2)
            {
                seen.Add(canvas.GetPixel(x, y));
            }
        }

        return seen;
    }
}
