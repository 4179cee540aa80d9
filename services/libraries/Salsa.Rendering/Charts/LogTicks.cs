using System.Globalization;
using ScottPlot;

namespace Salsa.Rendering.Charts;

/// <summary>
/// Ticks for an axis that shows log₁₀ of its values (see <see cref="ChartStyle.UseLogScale"/>):
/// major ticks at whole decades when the range spans several (every second or fifth one when they
/// would crowd), at 1, 2 and 5 × 10ⁿ when it spans fewer (every 1…9 × 10ⁿ within one decade), labelled with the value itself; minor
/// ticks at 2…9 × 10ⁿ. ScottPlot's own generators tick the logarithm linearly.
/// </summary>
internal sealed class LogTicks : ITickGenerator
{
    private static readonly double[] s_mantissas125 = [1, 2, 5];
    private static readonly double[] s_mantissasAll = [1, 2, 3, 4, 5, 6, 7, 8, 9];

    public Tick[] Ticks { get; set; } = [];

    public int MaxTickCount { get; set; } = 10_000;

    public void Regenerate(CoordinateRange range, Edge edge, PixelLength size, Paint paint, LabelStyle labelStyle)
    {
        var (low, high) = (Math.Min(range.Min, range.Max), Math.Max(range.Min, range.Max));
        if (!double.IsFinite(low) || !double.IsFinite(high) || high - low > 300)
        {
            Ticks = [];
            return;
        }

        // About one label per 60 pixels across, 30 up.
        var room = Math.Max(2, (int)(size.Length / (edge.IsHorizontal() ? 60 : 30)));
        var ticks = new List<Tick>();
        var first = (int)Math.Floor(low);
        var last = (int)Math.Ceiling(high);
        var decades = high - low;
        if (decades >= 3)
        {
            var step = (int)Math.Ceiling((last - first + 1) / (double)room);
            step = step <= 1 ? 1 : step <= 2 ? 2 : step <= 5 ? 5 : (int)Math.Ceiling(step / 10.0) * 10;
            for (var e = first; e <= last; e++)
            {
                if (e % step == 0 && e >= low && e <= high)
                {
                    ticks.Add(Tick.Major(e, Label(e, 1)));
                }
            }

            AddMinor(ticks, first, last, low, high, major: null);
        }
        else
        {
            var mantissas = decades > 0.6 ? s_mantissas125 : s_mantissasAll;
            for (var e = first; e <= last; e++)
            {
                foreach (var m in mantissas)
                {
                    var position = e + Math.Log10(m);
                    if (position >= low && position <= high)
                    {
                        ticks.Add(Tick.Major(position, Label(e, m)));
                    }
                }
            }

            AddMinor(ticks, first, last, low, high, major: mantissas);
        }

        Ticks = [.. ticks];
    }

    private static void AddMinor(List<Tick> ticks, int first, int last, double low, double high, double[]? major)
    {
        for (var e = first; e <= last; e++)
        {
            for (var m = 2; m <= 9; m++)
            {
                var position = e + Math.Log10(m);
                if (position >= low && position <= high && (major is null || Array.IndexOf(major, m) < 0))
                {
                    ticks.Add(Tick.Minor(position));
                }
            }
        }
    }

    /// <summary>m × 10^e as a reader writes it: 0.002, 50, 20,000, and 1e+8 from a hundred million on.</summary>
    internal static string Label(int exponent, double mantissa)
    {
        var value = mantissa * Math.Pow(10, exponent);
        var inv = CultureInfo.InvariantCulture;
        return exponent switch
        {
            >= 8 or <= -5 => string.Create(inv, $"{mantissa:0}e{exponent:+0;-0}"),
            >= 0 => value.ToString("#,0", inv),
            _ => value.ToString("0.#####", inv),
        };
    }
}
