using System.Globalization;

namespace Salsa.Rendering.Drawing;

/// <summary>
/// A colour: red, green, blue and alpha in 0..1, not premultiplied. Values outside 0..1 are
/// clamped when drawn (to 8 bits a channel).
/// </summary>
public readonly record struct Color(double R, double G, double B, double A = 1.0)
{
    public static Color Black { get; } = new(0, 0, 0);

    public static Color White { get; } = new(1, 1, 1);

    public static Color Transparent { get; } = new(0, 0, 0, 0);

    /// <summary>From 8-bit channels.</summary>
    public static Color FromRgb(byte r, byte g, byte b, byte a = 255) => new(r / 255.0, g / 255.0, b / 255.0, a / 255.0);

    /// <summary>Parses <c>#rgb</c>, <c>#rrggbb</c> or <c>#rrggbbaa</c> (the <c>#</c> is optional).</summary>
    /// <exception cref="FormatException">The text is not one of those forms.</exception>
    public static Color FromHex(string hex)
    {
        ArgumentNullException.ThrowIfNull(hex);
        var digits = hex.AsSpan().Trim().TrimStart('#');
        switch (digits.Length)
        {
            case 3:
                return FromRgb(Nibble(hex, digits[0]), Nibble(hex, digits[1]), Nibble(hex, digits[2]));
            case 6:
            case 8:
                var a = digits.Length == 8 ? Byte(hex, digits[6..8]) : (byte)255;
                return FromRgb(Byte(hex, digits[0..2]), Byte(hex, digits[2..4]), Byte(hex, digits[4..6]), a);
            default:
                throw new FormatException($"'{hex}' is not a colour: expected #rgb, #rrggbb or #rrggbbaa.");
        }
    }

    /// <summary>The same colour with another opacity.</summary>
    public Color WithAlpha(double alpha) => this with { A = alpha };

    /// <summary><c>#rrggbb</c>, or <c>#rrggbbaa</c> when not opaque.</summary>
    public string ToHex()
    {
        var rgb = string.Create(CultureInfo.InvariantCulture, $"#{To8(R):x2}{To8(G):x2}{To8(B):x2}");
        return To8(A) == 255 ? rgb : string.Create(CultureInfo.InvariantCulture, $"{rgb}{To8(A):x2}");
    }

    public override string ToString() => ToHex();

    private static byte To8(double channel) => (byte)Math.Round(Math.Clamp(channel, 0, 1) * 255);

    private static byte Nibble(string source, char digit) => (byte)(Byte(source, [digit, digit]));

    private static byte Byte(string source, ReadOnlySpan<char> digits) =>
        byte.TryParse(digits, NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture, out var value)
            ? value
            : throw new FormatException($"'{source}' is not a colour: '{digits}' is not hexadecimal.");
}
