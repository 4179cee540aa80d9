using System.Globalization;
using Salsa.Rendering.Drawing;

namespace Salsa.Rendering.Figures;

/// <summary>Colours, number formats and small pieces shared by the map and the scatter plot.</summary>
internal static class FigureText
{
    public static readonly Color Ink = Color.FromHex("#262626");
    public static readonly Color Muted = Color.FromHex("#5f6368");
    public static readonly Color FrameColour = Color.FromHex("#5f6368");
    public static readonly Color GridColour = Color.FromHex("#e6e6e6");

    /// <summary>A population for a legend: 12,345 below ten thousand, then 85k, 1.2M, 12M.</summary>
    public static string Population(double value)
    {
        var inv = CultureInfo.InvariantCulture;
        return value switch
        {
            >= 9.95e6 => string.Create(inv, $"{value / 1e6:0}M"),
            >= 1e6 => string.Create(inv, $"{value / 1e6:0.#}M"),
            >= 9.95e3 => string.Create(inv, $"{value / 1e3:0}k"),
            _ => value.ToString("N0", inv),
        };
    }

    public static string Count(double value) => value.ToString("N0", CultureInfo.InvariantCulture);

    /// <summary>The largest 1, 2 or 5 × 10ⁿ not above <paramref name="value"/>.</summary>
    public static double NiceFloor(double value)
    {
        if (!(value > 0) || !double.IsFinite(value))
        {
            return 1;
        }

        var magnitude = Math.Pow(10, Math.Floor(Math.Log10(value)));
        var leading = value / magnitude;
        return (leading >= 5 ? 5 : leading >= 2 ? 2 : 1) * magnitude;
    }

    /// <summary>A darker shade of <paramref name="colour"/> for outlines and labels.</summary>
    public static Color Darker(Color colour, double factor = 0.65) =>
        new(colour.R * factor, colour.G * factor, colour.B * factor, colour.A);

    /// <summary>Pixel snapping: a 1-unit line centred on a half unit covers whole pixels and looks sharp.</summary>
    public static double Crisp(double coordinate) => Math.Floor(coordinate) + 0.5;
}
