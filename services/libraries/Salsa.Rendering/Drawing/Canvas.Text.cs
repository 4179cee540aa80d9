using SkiaSharp;

namespace Salsa.Rendering.Drawing;

public sealed partial class Canvas
{
    /// <summary>The advance width of <paramref name="text"/> and the font's line height.</summary>
    public TextSize MeasureText(string text, Font font)
    {
        ArgumentNullException.ThrowIfNull(text);
        ObjectDisposedException.ThrowIf(_disposed, this);
        using var skFont = SkFont(font);
        var metrics = skFont.Metrics;
        return new TextSize(skFont.MeasureText(text), metrics.Descent - metrics.Ascent);
    }

    /// <summary>Draws one line of text anchored at (<paramref name="x"/>, <paramref name="y"/>) as <paramref name="style"/> says.</summary>
    public void DrawText(string text, double x, double y, TextStyle style)
    {
        ArgumentNullException.ThrowIfNull(text);
        ThrowIfNotDrawable();
        if (!double.IsFinite(style.Rotation))
        {
            throw new ArgumentOutOfRangeException(nameof(style), style.Rotation, "The rotation must be a finite number of degrees.");
        }

        if (text.Length == 0)
        {
            return;
        }

        using var font = SkFont(style.Font);
        var metrics = font.Metrics;
        var width = font.MeasureText(text);
        // Alignment uses the font's metrics rather than each string's ink, so labels such as "10"
        // and "0.1" share a baseline.
        var dx = style.Horizontal switch
        {
            HorizontalAlignment.Center => -width / 2,
            HorizontalAlignment.Right => -width,
            _ => 0,
        };
        var dy = style.Vertical switch
        {
            VerticalAlignment.Middle => metrics.CapHeight / 2,
            VerticalAlignment.Top => metrics.CapHeight,
            VerticalAlignment.Bottom => -metrics.Descent,
            _ => 0,
        };

        using var paint = FillPaint(style.Color);
        _canvas.Save();
        _canvas.Translate((float)x, (float)y);
        if (style.Rotation != 0)
        {
            // Skia turns clockwise on screen for a positive angle; the style counts the usual way.
            _canvas.RotateDegrees((float)-style.Rotation);
        }

        _canvas.DrawText(text, dx, dy, SKTextAlign.Left, font, paint);
        _canvas.Restore();
    }

    private static SKFont SkFont(Font font)
    {
        if (font.Size <= 0 || !double.IsFinite(font.Size))
        {
            throw new ArgumentOutOfRangeException(nameof(font), font.Size, "The font size must be a positive number.");
        }

        return new SKFont(EmbeddedFonts.Typeface(font.Bold), (float)font.Size) { Subpixel = true, Edging = SKFontEdging.Antialias };
    }
}
