using System.Collections.Concurrent;
using SkiaSharp;

namespace Salsa.Rendering.Drawing;

/// <summary>
/// The DejaVu Sans built into this assembly (see the project file), the one typeface of every
/// figure: the canvas sets all text in it, and ScottPlot resolves its font names to it
/// (<see cref="Charts.ChartStyle"/>), so no system font library is needed and a figure is the same
/// on every machine.
/// </summary>
public static class EmbeddedFonts
{
    public const string Family = "DejaVu Sans";

    private static readonly ConcurrentDictionary<bool, SKTypeface> s_typefaces = new();

    /// <summary>The regular or bold face; loaded once per process and shared (Skia typefaces are immutable).</summary>
    public static SKTypeface Typeface(bool bold) => s_typefaces.GetOrAdd(bold, static b =>
    {
        var name = b ? "Salsa.Rendering.Fonts.DejaVuSans-Bold.ttf" : "Salsa.Rendering.Fonts.DejaVuSans.ttf";
        using var stream = typeof(EmbeddedFonts).Assembly.GetManifestResourceStream(name)
            ?? throw new InvalidOperationException($"Salsa.Rendering was built without its font {name}.");
        return SKTypeface.FromStream(stream) ?? throw new InvalidOperationException($"Skia could not read the font {name}.");
    });
}
