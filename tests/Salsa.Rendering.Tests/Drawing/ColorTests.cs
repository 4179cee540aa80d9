using Salsa.Rendering.Drawing;

namespace Salsa.Rendering.Tests.Drawing;

public sealed class ColorTests
{
    [Theory]
    [InlineData("#1f77b4", 0x1f, 0x77, 0xb4, 0xff)]
    [InlineData("1F77B4", 0x1f, 0x77, 0xb4, 0xff)]
    [InlineData("#f00", 0xff, 0x00, 0x00, 0xff)]
    [InlineData("#1f77b480", 0x1f, 0x77, 0xb4, 0x80)]
    public void FromHex_ValidForms_ParsesChannels(string hex, byte r, byte g, byte b, byte a)
    {
        Assert.Equal(Color.FromRgb(r, g, b, a), Color.FromHex(hex));
    }

    [Theory]
    [InlineData("")]
    [InlineData("#12345")]
    [InlineData("#gg0000")]
    public void FromHex_Malformed_ThrowsFormatException(string hex)
    {
        Assert.Throws<FormatException>(() => Color.FromHex(hex));
    }

    [Fact]
    public void ToHex_OpaqueAndTranslucent_RoundTrips()
    {
        Assert.Equal("#1f77b4", Color.FromHex("#1f77b4").ToHex());
        Assert.Equal("#1f77b480", Color.FromHex("#1f77b480").ToHex());
    }

    [Fact]
    public void Categorical_FirstTen_AreTableau10()
    {
        Assert.Equal("#1f77b4", Palette.Categorical[0].ToHex());
        Assert.Equal("#17becf", Palette.Categorical[9].ToHex());
    }

    [Fact]
    public void Categorical_FirstTwenty_AreFarApartInCielab()
    {
        Assert.True(Palette.Categorical.Count >= 20);
        var lab = Palette.Categorical.Take(20).Select(ToLab).ToArray();

        for (var i = 0; i < lab.Length; i++)
        {
            for (var j = i + 1; j < lab.Length; j++)
            {
                var distance = Math.Sqrt(Math.Pow(lab[i].L - lab[j].L, 2) + Math.Pow(lab[i].A - lab[j].A, 2) + Math.Pow(lab[i].B - lab[j].B, 2));
                Assert.True(distance > 25, $"Colours {i} and {j} are only ΔE {distance:F1} apart.");
            }
        }
    }

    [Fact]
    public void Category_PastTheEnd_Repeats()
    {
        Assert.Equal(Palette.Category(0), Palette.Category(Palette.Categorical.Count));
    }

    /// <summary>sRGB (D65) to CIELAB.</summary>
    private static (double L, double A, double B) ToLab(Color c)
    {
        static double Linear(double v) => v <= 0.04045 ? v / 12.92 : Math.Pow((v + 0.055) / 1.055, 2.4);
        static double F(double t) => t > 0.008856 ? Math.Cbrt(t) : (7.787 * t) + (16.0 / 116);
        var (r, g, b) = (Linear(c.R), Linear(c.G), Linear(c.B));
        var x = ((0.4124 * r) + (0.3576 * g) + (0.1805 * b)) / 0.95047;
        var y = (0.2126 * r) + (0.7152 * g) + (0.0722 * b);
        var z = ((0.0193 * r) + (0.1192 * g) + (0.9505 * b)) / 1.08883;
        return ((116 * F(y)) - 16, 500 * (F(x) - F(y)), 200 * (F(y) - F(z)));
    }
}
