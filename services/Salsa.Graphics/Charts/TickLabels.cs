using System.Globalization;
using System.Text;

namespace Salsa.Graphics.Charts;

/// <summary>
/// Tick label text. All labels of an axis share one number of decimals, negative numbers take a
/// true minus sign (U+2212, as typeset), and very large or small magnitudes are written as
/// powers of ten with superscript digits (DejaVu Sans has them).
/// </summary>
internal static class TickLabels
{
    private const char Minus = '\u2212';
    private const string Superscripts = "⁰¹²³⁴⁵⁶⁷⁸⁹";

    public static string[] Linear(IReadOnlyList<double> values, double step)
    {
        var largest = values.Count == 0 ? 0 : values.Max(Math.Abs);
        var stepExponent = (int)Math.Floor(Math.Log10(step) + 1e-9);
        if (largest >= 1e6 || (largest > 0 && largest < 1e-3))
        {
            var exponent = (int)Math.Floor(Math.Log10(largest) + 1e-9);
            var decimals = Math.Max(0, exponent - stepExponent);
            return [.. values.Select(v => v == 0 ? "0" : Scientific(v / Math.Pow(10, exponent), decimals, exponent))];
        }

        return [.. values.Select(v => Fixed(v, Math.Max(0, -stepExponent)))];
    }

    /// <summary>
    /// Plain numbers when every tick lies from 0.001 to 10000; otherwise every decade as a power
    /// of ten, so one axis never mixes "10000" with "10⁵".
    /// </summary>
    public static string[] Log(IReadOnlyList<double> values)
    {
        var plain = values.All(v => v is >= 1e-3 and < 1e5);
        return [.. values.Select(v => Log(v, plain))];
    }

    private static string Log(double value, bool plain)
    {
        var exponent = (int)Math.Floor(Math.Log10(value) + 1e-9);
        var mantissa = value / Math.Pow(10, exponent);
        if (plain)
        {
            return Fixed(value, Math.Max(0, -exponent + Decimals(mantissa)));
        }

        return Math.Abs(mantissa - 1) < 1e-9
            ? "10" + Superscript(exponent)
            : Scientific(mantissa, Decimals(mantissa), exponent);
    }

    private static int Decimals(double mantissa) => Math.Abs(mantissa - Math.Round(mantissa)) < 1e-9 ? 0 : 1;

    private static string Fixed(double value, int decimals)
    {
        var text = Math.Abs(value).ToString("F" + decimals.ToString(CultureInfo.InvariantCulture), CultureInfo.InvariantCulture);
        return value < 0 && text.Any(c => c is >= '1' and <= '9') ? Minus + text : text;
    }

    private static string Scientific(double mantissa, int decimals, int exponent) =>
        Fixed(mantissa, decimals) + "×10" + Superscript(exponent);

    private static string Superscript(int exponent)
    {
        var text = new StringBuilder();
        if (exponent < 0)
        {
            text.Append('⁻');
        }

        foreach (var digit in Math.Abs(exponent).ToString(CultureInfo.InvariantCulture))
        {
            text.Append(Superscripts[digit - '0']);
        }

        return text.ToString();
    }
}
