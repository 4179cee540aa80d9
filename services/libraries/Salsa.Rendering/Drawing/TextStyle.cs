namespace Salsa.Rendering.Drawing;

public enum HorizontalAlignment
{
    Left,
    Center,
    Right,
}

/// <summary>Where the anchor point sits vertically on the text.</summary>
public enum VerticalAlignment
{
    /// <summary>On the baseline.</summary>
    Baseline,

    /// <summary>Half way up the capitals, so digits and capitals look centred.</summary>
    Middle,

    /// <summary>At the top of the capitals.</summary>
    Top,

    /// <summary>At the bottom of the descenders.</summary>
    Bottom,
}

/// <summary>A font: size and weight of the embedded DejaVu Sans (<see cref="EmbeddedFonts"/>), the one family figures use.</summary>
public readonly record struct Font(double Size = 12, bool Bold = false, string Family = Font.DefaultFamily)
{
    public const string DefaultFamily = EmbeddedFonts.Family;

    /// <summary>12-unit regular DejaVu Sans (without this, <c>new Font()</c> would have size 0).</summary>
    public Font()
        : this(12)
    {
    }
}

/// <summary>
/// How text is placed: the anchor is aligned as asked in the text's own frame, which is then
/// rotated about the anchor by <see cref="Rotation"/> degrees counter-clockwise.
/// </summary>
public readonly record struct TextStyle(
    Font Font,
    Color Color,
    HorizontalAlignment Horizontal = HorizontalAlignment.Left,
    VerticalAlignment Vertical = VerticalAlignment.Baseline,
    double Rotation = 0);
