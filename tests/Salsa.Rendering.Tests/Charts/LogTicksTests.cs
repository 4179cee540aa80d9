using Salsa.Rendering.Charts;

namespace Salsa.Rendering.Tests.Charts;

public sealed class LogTicksTests
{
    [Fact]
    public void Regenerate_SixDecades_LabelsEveryDecadeWithItsValue()
    {
        var ticks = Generate(0, 6, 600);

        Assert.Equal(["1", "10", "100", "1,000", "10,000", "100,000", "1,000,000"], Majors(ticks).Select(t => t.Label));
        Assert.Equal(Enumerable.Range(0, 7).Select(e => (double)e), Majors(ticks).Select(t => t.Position));
        // 2…9 × 10ⁿ as minor ticks, at their logarithms.
        Assert.Contains(ticks, t => !t.IsMajor && Math.Abs(t.Position - Math.Log10(300)) < 1e-12);
    }

    [Fact]
    public void Regenerate_ManyDecadesInLittleRoom_ThinsMajorTicks()
    {
        var ticks = Generate(-10, 10, 300);

        Assert.InRange(Majors(ticks).Count(), 2, 6);
        Assert.All(Majors(ticks), t => Assert.Equal(0, t.Position % 5));
    }

    [Fact]
    public void Regenerate_UnderThreeDecades_LabelsOneTwoFive()
    {
        var ticks = Generate(Math.Log10(0.8), Math.Log10(60), 400);

        Assert.Equal(["1", "2", "5", "10", "20", "50"], Majors(ticks).Select(t => t.Label));
    }

    [Fact]
    public void Regenerate_WithinOneDecade_LabelsEveryDigit()
    {
        var ticks = Generate(Math.Log10(0.25), Math.Log10(0.75), 400);

        Assert.Equal(["0.3", "0.4", "0.5", "0.6", "0.7"], Majors(ticks).Select(t => t.Label));
    }

    [Theory]
    [InlineData(double.NaN, 1)]
    [InlineData(0, double.PositiveInfinity)]
    [InlineData(-400, 400)]
    public void Regenerate_NoUsableRange_NoTicks(double low, double high)
    {
        Assert.Empty(Generate(low, high, 400));
    }

    [Theory]
    [InlineData(0, 1, "1")]
    [InlineData(3, 2, "2,000")]
    [InlineData(-3, 2, "0.002")]
    [InlineData(7, 5, "50,000,000")]
    [InlineData(8, 1, "1e+8")]
    [InlineData(-6, 5, "5e-6")]
    public void Label_ReadsAsTheValue(int exponent, double mantissa, string expected)
    {
        Assert.Equal(expected, LogTicks.Label(exponent, mantissa));
    }

    private static ScottPlot.Tick[] Generate(double low, double high, float pixels)
    {
        var generator = new LogTicks();
        using var paint = ScottPlot.Paint.NewDisposablePaint();
        generator.Regenerate(new ScottPlot.CoordinateRange(low, high), ScottPlot.Edge.Bottom, new ScottPlot.PixelLength(pixels), paint, new ScottPlot.LabelStyle());
        return generator.Ticks;
    }

    private static IEnumerable<ScottPlot.Tick> Majors(ScottPlot.Tick[] ticks) => ticks.Where(t => t.IsMajor).OrderBy(t => t.Position);
}
