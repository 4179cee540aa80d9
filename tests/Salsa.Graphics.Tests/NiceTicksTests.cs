using Salsa.Graphics.Charts;

namespace Salsa.Graphics.Tests;

public sealed class NiceTicksTests
{
    [Fact]
    public void Linear_ZeroToOne_StepsOfTwoTenths()
    {
        var ticks = NiceTicks.Linear(0, 1);

        Assert.Equal([0, 0.2, 0.4, 0.6, 0.8, 1.0], ticks.Major);
        Assert.Equal(["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"], ticks.Labels);
    }

    [Fact]
    public void Linear_ZeroToOneWithFewTicks_StepsOfHalves()
    {
        var ticks = NiceTicks.Linear(0, 1, maxCount: 3);

        Assert.Equal([0, 0.5, 1.0], ticks.Major);
    }

    [Fact]
    public void Linear_NegativeRange_WholeNumbersWithMinusSigns()
    {
        var ticks = NiceTicks.Linear(-7.3, -2.1);

        Assert.Equal([-7, -6, -5, -4, -3], ticks.Major);
        Assert.Equal("\u22127", ticks.Labels[0]);
    }

    [Fact]
    public void Linear_RangeAcrossZero_LabelsZeroWithoutSign()
    {
        var ticks = NiceTicks.Linear(-0.25, 0.35);

        Assert.Contains(0.0, ticks.Major);
        Assert.Contains("0.0", ticks.Labels);
        Assert.DoesNotContain("\u22120.0", ticks.Labels);
    }

    [Fact]
    public void Linear_SingleValue_TicksAroundIt()
    {
        var ticks = NiceTicks.Linear(5, 5);

        Assert.Contains(5.0, ticks.Major);
        Assert.True(ticks.Major.Count >= 3);
        Assert.All(ticks.Major, v => Assert.InRange(v, 4.5, 5.5));
    }

    [Fact]
    public void Linear_SingleZero_TicksAroundZero()
    {
        var ticks = NiceTicks.Linear(0, 0);

        Assert.Contains(0.0, ticks.Major);
        Assert.Contains(-1.0, ticks.Major);
        Assert.Contains(1.0, ticks.Major);
    }

    [Fact]
    public void Linear_ReversedRange_SameAsOrdered()
    {
        Assert.Equal(NiceTicks.Linear(3, 17).Major, NiceTicks.Linear(17, 3).Major);
    }

    [Fact]
    public void Linear_Millions_LabelledAsPowersOfTen()
    {
        var ticks = NiceTicks.Linear(0, 4.5e6, maxCount: 6);

        Assert.Equal([0, 1e6, 2e6, 3e6, 4e6], ticks.Major);
        Assert.Equal(["0", "1×10⁶", "2×10⁶", "3×10⁶", "4×10⁶"], ticks.Labels);
    }

    [Fact]
    public void Linear_ManyRandomRanges_TicksAreEvenInsideAndWithinCount()
    {
        var random = new Random(20261121);
        for (var trial = 0; trial < 2000; trial++)
        {
            var a = (random.NextDouble() - 0.5) * Math.Pow(10, random.Next(-6, 8));
            var b = a + (random.NextDouble() * Math.Pow(10, random.Next(-6, 8)));
            var maxCount = random.Next(2, 12);

            var ticks = NiceTicks.Linear(a, b, maxCount).Major;

            Assert.InRange(ticks.Count, 1, maxCount);
            Assert.All(ticks, v => Assert.InRange(v, a - (Math.Abs(b - a) * 1e-6), b + (Math.Abs(b - a) * 1e-6)));
            // Even up to the doubles' own rounding at the ticks' magnitude.
            var tolerance = Math.Max(Math.Abs(a), Math.Abs(b)) * 1e-12;
            for (var i = 2; i < ticks.Count; i++)
            {
                Assert.Equal(ticks[1] - ticks[0], ticks[i] - ticks[i - 1], Math.Max(tolerance, (ticks[1] - ticks[0]) * 1e-9));
            }
        }
    }

    [Fact]
    public void Log10_ThousandthsToHundreds_LabelsEveryDecadeInside()
    {
        var ticks = NiceTicks.Log10(0.003, 870);

        Assert.Equal([0.01, 0.1, 1, 10, 100], ticks.Major);
        Assert.Equal(["0.01", "0.1", "1", "10", "100"], ticks.Labels);
        Assert.Contains(0.003, ticks.Minor);
        Assert.Contains(800.0, ticks.Minor);
        Assert.DoesNotContain(900.0, ticks.Minor);
    }

    [Fact]
    public void Log10_TwelveDecadesFewTicks_EveryThirdDecadeAsPowers()
    {
        var ticks = NiceTicks.Log10(1e-3, 1e9, maxCount: 5);

        Assert.Equal([1e-3, 1, 1e3, 1e6, 1e9], ticks.Major);
        Assert.Equal(["10⁻³", "10⁰", "10³", "10⁶", "10⁹"], ticks.Labels);
        Assert.Contains(1e-2, ticks.Minor);
    }

    [Fact]
    public void Log10_TwoDecades_AlsoLabelsTwosAndFives()
    {
        var ticks = NiceTicks.Log10(0.9, 40);

        Assert.Equal([1, 2, 5, 10, 20], ticks.Major);
    }

    [Fact]
    public void Log10_WithinOneDecade_FallsBackToLinearSteps()
    {
        var ticks = NiceTicks.Log10(3, 8);

        Assert.Equal([3, 4, 5, 6, 7, 8], ticks.Major);
    }

    [Fact]
    public void Log10_SingleValue_TicksAroundIt()
    {
        var ticks = NiceTicks.Log10(5, 5);

        Assert.True(ticks.Major.Count >= 2);
        Assert.All(ticks.Major, v => Assert.InRange(v, 5 / Math.Sqrt(10), 5 * Math.Sqrt(10)));
    }

    [Fact]
    public void Log10_NonPositiveRange_Throws()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => NiceTicks.Log10(0, 10));
    }

    [Fact]
    public void Linear_InfiniteEnd_Throws()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => NiceTicks.Linear(0, double.PositiveInfinity));
    }
}
