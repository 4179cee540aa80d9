using Salsa.Rendering.Charts;
using ScottPlot;
using ScottPlot.Plottables;

namespace Salsa.Rendering.Tests.Charts;

public sealed class ChartTests
{
    private static readonly SeriesStyle Blue = new(Colors.Blue);

    [Fact]
    public void ToPlot_LogAxes_PlotsLogarithmsAndDropsWhatTheAxisCannotShow()
    {
        var chart = new Chart("latency", "bytes", "µs") { XScale = Scale.Log10, YScale = Scale.Log10 };
        chart.AddLine("ours", [0, 10, 100, 1000, 10_000], [5, 1, double.NaN, 100, 1000], Blue);

        using var plot = chart.ToPlot();

        var line = Assert.Single(plot.GetPlottables<ScottPlot.Plottables.Scatter>());
        var points = line.Data.GetScatterPoints();
        Assert.Equal([(1.0, 0.0), (3.0, 2.0), (4.0, 3.0)], points.Select(p => (p.X, p.Y)));
        Assert.IsType<LogTicks>(plot.Axes.Bottom.TickGenerator);
        Assert.IsType<LogTicks>(plot.Axes.Left.TickGenerator);
    }

    [Fact]
    public void ToPlot_GroupedBars_SideBySidePerCategoryAndANaNLeavesAGap()
    {
        var chart = new Chart();
        chart.AddBars("a", ["2 ranks", "4 ranks"], [1, 2], Blue);
        chart.AddBars("b", ["2 ranks", "4 ranks", "8 ranks"], [double.NaN, 3, 4], new SeriesStyle(Colors.Orange));

        using var plot = chart.ToPlot();
        plot.RenderInMemory(600, 400);

        var series = plot.GetPlottables<BarPlot>().ToList();
        Assert.Equal(2, series.Count);
        Assert.Equal([-0.2, 0.8], series[0].Bars.Select(b => Math.Round(b.Position, 9)));
        Assert.Equal([1.2, 2.2], series[1].Bars.Select(b => Math.Round(b.Position, 9)));
        Assert.All(series.SelectMany(s => s.Bars), b => Assert.Equal(0, b.ValueBase));
        Assert.Equal(["2 ranks", "4 ranks", "8 ranks"], plot.Axes.Bottom.TickGenerator.Ticks.Where(t => t.IsMajor).Select(t => t.Label));
    }

    [Fact]
    public void ToPlot_LogBarsWithErrors_StandOnTheAxisAndAnImpossibleLowerErrorRunsToIt()
    {
        var chart = new Chart { YScale = Scale.Log10 };
        chart.AddBars("ns", ["S = 1", "S = 8"], [10, 1000], Blue, [5, 2000]);

        using var plot = chart.ToPlot();

        var bars = Assert.Single(plot.GetPlottables<BarPlot>()).Bars;
        var floor = bars[0].ValueBase;
        Assert.True(floor < 1, $"bars start at {floor}, above the smaller bar's logarithm 1");
        Assert.Equal(floor, plot.Axes.Left.Min, 9);
        var whiskers = Assert.Single(plot.GetPlottables<ErrorBar>());
        Assert.Equal(Math.Log10(15) - 1, whiskers.YErrorPositive![0], 9);
        Assert.Equal(1 - Math.Log10(5), whiskers.YErrorNegative![0], 9);
        // 1000 − 2000 has no logarithm: the whisker runs down to the axis.
        Assert.Equal(3 - floor, whiskers.YErrorNegative![1], 9);
    }

    [Theory]
    [InlineData(new double[] { 4, 3, 2, 1, 0 }, Alignment.UpperRight)]
    [InlineData(new double[] { 0, 1, 2, 3, 4 }, Alignment.UpperLeft)]
    [InlineData(new double[] { 4, 4, 4, 0, 4 }, Alignment.LowerLeft)]
    public void ToPlot_DataLeavesACornerFree_LegendGoesThere(double[] y, Alignment expected)
    {
        var chart = new Chart();
        chart.AddLine("series", [0, 1, 2, 3, 4], y, Blue);

        using var plot = chart.ToPlot();

        Assert.True(plot.Legend.IsVisible);
        Assert.Equal(expected, plot.Legend.Alignment);
    }

    [Fact]
    public void ToPlot_EveryCornerBusy_LegendGoesOutsideOnTheRight()
    {
        var chart = new Chart();
        chart.AddScatter("corners", [0, 0, 10, 10, 5], [0, 10, 0, 10, 5], Blue);

        using var plot = chart.ToPlot();

        Assert.False(plot.Legend.IsVisible);
        Assert.Single(plot.Axes.GetPanels().OfType<ScottPlot.Panels.LegendPanel>());
    }

    [Fact]
    public void ToPlot_WholeNumberX_GetsWholeNumberTicks()
    {
        var chart = new Chart();
        chart.AddLine("ranks", [1, 2], [1, 1.5], Blue);

        using var plot = chart.ToPlot();
        plot.RenderInMemory(600, 400);

        Assert.All(plot.Axes.Bottom.TickGenerator.Ticks.Where(t => t.IsMajor), t => Assert.Equal(Math.Round(t.Position), t.Position));
    }

    [Fact]
    public void ToPlot_FixedLimits_AreDataUnitsOnALogAxis()
    {
        var chart = new Chart { YScale = Scale.Log10, YLimits = new AxisRange(10, 1000) };
        chart.AddLine("x", [1, 2], [20, 500], Blue);

        using var plot = chart.ToPlot();

        Assert.Equal((1.0, 3.0), (plot.Axes.Left.Min, plot.Axes.Left.Max));
    }

    [Fact]
    public void AddLine_LengthsDiffer_Refused()
    {
        Assert.Throws<ArgumentException>(() => new Chart().AddLine("x", [1, 2, 3], [1, 2], Blue));
        Assert.Throws<ArgumentException>(() => new Chart().AddBars("x", ["a", "b"], [1, 2], Blue, [1]));
    }
}
