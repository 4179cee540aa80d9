using Salsa.Graphics.Native;

namespace Salsa.Graphics;

public sealed partial class Canvas
{
    private Font _selectedFont;
    private FontMetrics _selectedMetrics;

    /// <summary>The advance width of <paramref name="text"/> and the font's line height.</summary>
    public TextSize MeasureText(string text, Font font)
    {
        ArgumentNullException.ThrowIfNull(text);
        ObjectDisposedException.ThrowIf(_disposed, this);
        var metrics = SelectFont(font);
        Cairo.TextExtents(_context, text, out var extents);
        Check("MeasureText");
        return new TextSize(extents.XAdvance, metrics.Ascent + metrics.Descent);
    }

    /// <summary>Draws one line of text anchored at (<paramref name="x"/>, <paramref name="y"/>) as <paramref name="style"/> says.</summary>
    public void DrawText(string text, double x, double y, TextStyle style)
    {
        ArgumentNullException.ThrowIfNull(text);
        ThrowIfNotDrawable();
        if (text.Length == 0)
        {
            return;
        }

        var metrics = SelectFont(style.Font);
        Cairo.TextExtents(_context, text, out var extents);
        var dx = style.Horizontal switch
        {
            HorizontalAlignment.Center => -extents.XAdvance / 2,
            HorizontalAlignment.Right => -extents.XAdvance,
            _ => 0,
        };
        var dy = style.Vertical switch
        {
            VerticalAlignment.Middle => metrics.CapHeight / 2,
            VerticalAlignment.Top => metrics.CapHeight,
            VerticalAlignment.Bottom => -metrics.Descent,
            _ => 0,
        };

        Cairo.Save(_context);
        Cairo.Translate(_context, x, y);
        if (style.Rotation != 0)
        {
            // Cairo turns clockwise on screen for a positive angle; the style counts the usual way.
            Cairo.Rotate(_context, -style.Rotation * Math.PI / 180);
        }

        Cairo.MoveTo(_context, dx, dy);
        SetSource(style.Color);
        Cairo.ShowText(_context, text);
        if (_textLayer is not null)
        {
            Cairo.GetMatrix(_context, out var matrix);
            _textLayer.Add(text, matrix, dx, dy, style.Font);
        }

        Cairo.NewPath(_context);
        Cairo.Restore(_context);
        Check("DrawText");
    }

    private FontMetrics SelectFont(Font font)
    {
        if (font.Size <= 0 || !double.IsFinite(font.Size))
        {
            throw new ArgumentOutOfRangeException(nameof(font), font.Size, "The font size must be a positive number.");
        }

        var family = string.IsNullOrEmpty(font.Family) ? Font.DefaultFamily : font.Family;
        Cairo.SelectFontFace(_context, family, FontSlant.Normal, font.Bold ? FontWeight.Bold : FontWeight.Normal);
        Cairo.SetFontSize(_context, font.Size);
        if (font != _selectedFont)
        {
            // Alignment uses the font's metrics rather than each string's ink, so labels such as
            // "10" and "0.1" share a baseline.
            Cairo.FontExtents(_context, out var fontExtents);
            Cairo.TextExtents(_context, "H", out var capital);
            _selectedMetrics = new FontMetrics(fontExtents.Ascent, fontExtents.Descent, -capital.YBearing);
            _selectedFont = font;
        }

        return _selectedMetrics;
    }

    private readonly record struct FontMetrics(double Ascent, double Descent, double CapHeight);
}
