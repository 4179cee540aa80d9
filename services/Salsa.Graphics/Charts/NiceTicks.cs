namespace Salsa.Graphics.Charts;

/// <summary>Major ticks with their labels, and unlabelled minor ticks, all inside the range asked for.</summary>
public sealed record AxisTicks(IReadOnlyList<double> Major, IReadOnlyList<string> Labels, IReadOnlyList<double> Minor);

/// <summary>
/// Tick positions people read easily: multiples of 1, 2 or 5 times a power of ten on a linear
/// axis; whole decades (every one, or every 2nd, 3rd, 5th…) on a log axis, with 2…9 between
/// them as minor ticks. Ticks never fall outside the range.
/// </summary>
public static class NiceTicks
{
    private static readonly double[] LinearSteps = [1, 2, 5, 10];
    private static readonly int[] DecadeStrides = [1, 2, 3, 5, 10, 20, 50, 100];

    // Ticks within this fraction of a step of a range end still count as inside it.
    private const double Tolerance = 1e-9;

    public static AxisTicks For(Scale scale, double min, double max, int maxCount) =>
        scale == Scale.Log10 ? Log10(min, max, maxCount) : Linear(min, max, maxCount);

    /// <summary>At most <paramref name="maxCount"/> (≥ 2) ticks at the finest 1-2-5 step that fits.</summary>
    public static AxisTicks Linear(double min, double max, int maxCount = 8)
    {
        (min, max) = Validate(min, max, ref maxCount);
        if (min == max)
        {
            var half = min == 0 ? 1 : Math.Abs(min) * 0.1;
            (min, max) = (min - half, max + half);
        }

        var rough = (max - min) / (maxCount - 1);
        var exponent = (int)Math.Floor(Math.Log10(rough));
        foreach (var multiple in LinearSteps)
        {
            var (first, last) = MultiplesWithin(min, max, multiple * Math.Pow(10, exponent));
            if (last - first + 1 <= maxCount)
            {
                var values = new double[Math.Max(0, last - first + 1)];
                for (var i = 0; i < values.Length; i++)
                {
                    values[i] = Decimal((first + i) * multiple, exponent);
                }

                return new AxisTicks(values, TickLabels.Linear(values, multiple * Math.Pow(10, exponent)), []);
            }
        }

        throw new InvalidOperationException("A step of ten times the rough step always fits.");
    }

    /// <summary>
    /// Decades when the range holds two or more; otherwise 1-2-5 multiples of powers of ten, or
    /// linear ticks when even those are too few. Both ends must be positive.
    /// </summary>
    public static AxisTicks Log10(double min, double max, int maxCount = 8)
    {
        (min, max) = Validate(min, max, ref maxCount);
        if (min <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(min), min, "A log axis needs a positive range.");
        }

        if (min == max)
        {
            (min, max) = (min / Math.Sqrt(10), max * Math.Sqrt(10));
        }

        var lo = Math.Log10(min);
        var hi = Math.Log10(max);
        var firstDecade = (int)Math.Ceiling(lo - Tolerance);
        var lastDecade = (int)Math.Floor(hi + Tolerance);
        if (lastDecade - firstDecade >= 1)
        {
            return Decades(min, max, firstDecade, lastDecade, maxCount);
        }

        var major = new List<double>();
        var minor = new List<double>();
        for (var decade = (int)Math.Floor(lo) - 1; decade <= lastDecade + 1; decade++)
        {
            for (var mantissa = 1; mantissa <= 9; mantissa++)
            {
                var value = Decimal(mantissa, decade);
                if (value >= min * (1 - Tolerance) && value <= max * (1 + Tolerance))
                {
                    (mantissa is 1 or 2 or 5 ? major : minor).Add(value);
                }
            }
        }

        if (major.Count >= 2 && major.Count <= maxCount)
        {
            return new AxisTicks(major, TickLabels.Log(major), minor);
        }

        // Less than about half a decade: a log axis then looks linear, and so can its ticks
        // (all positive, as the range is).
        return Linear(min, max, maxCount);
    }

    private static AxisTicks Decades(double min, double max, int firstDecade, int lastDecade, int maxCount)
    {
        var stride = DecadeStrides.FirstOrDefault(s => CountMultiples(firstDecade, lastDecade, s) <= maxCount, DecadeStrides[^1]);
        var major = new List<double>();
        var minor = new List<double>();
        for (var decade = firstDecade; decade <= lastDecade; decade++)
        {
            (decade % stride == 0 ? major : minor).Add(Decimal(1, decade));
        }

        // Every decade labelled: the in-between multiples help read values off the axis, and
        // over two or three decades 2 and 5 are labelled too, as long as they fit.
        if (stride == 1)
        {
            var between = new List<double>();
            for (var decade = firstDecade - 1; decade <= lastDecade; decade++)
            {
                for (var mantissa = 2; mantissa <= 9; mantissa++)
                {
                    var value = Decimal(mantissa, decade);
                    if (value >= min && value <= max)
                    {
                        between.Add(value);
                    }
                }
            }

            var twosAndFives = between.Where(v => Mantissa(v) is 2 or 5).ToList();
            if (major.Count < 4 && major.Count + twosAndFives.Count <= maxCount)
            {
                major.AddRange(twosAndFives);
                major.Sort();
                between.RemoveAll(twosAndFives.Contains);
            }

            minor.AddRange(between);
        }

        minor.Sort();
        return new AxisTicks(major, TickLabels.Log(major), minor);
    }

    private static int Mantissa(double value) => (int)Math.Round(value / Math.Pow(10, Math.Floor(Math.Log10(value) + 1e-9)));

    private static int CountMultiples(int first, int last, int stride) =>
        (int)(Math.Floor((double)last / stride) - Math.Ceiling((double)first / stride)) + 1;

    private static (long First, long Last) MultiplesWithin(double min, double max, double step) =>
        ((long)Math.Ceiling((min / step) - Tolerance), (long)Math.Floor((max / step) + Tolerance));

    /// <summary>
    /// <paramref name="mantissa"/>·10^<paramref name="exponent"/> as the double nearest the decimal
    /// value (so 3 × 0.2 prints as 0.6): one correctly rounded operation on exact operands.
    /// </summary>
    private static double Decimal(double mantissa, int exponent) =>
        exponent >= 0 ? mantissa * Math.Pow(10, exponent) : mantissa / Math.Pow(10, -exponent);

    private static (double Min, double Max) Validate(double min, double max, ref int maxCount)
    {
        if (!double.IsFinite(min) || !double.IsFinite(max))
        {
            throw new ArgumentOutOfRangeException(nameof(min), $"The range {min}..{max} is not finite.");
        }

        maxCount = Math.Max(2, maxCount);
        return min <= max ? (min, max) : (max, min);
    }
}
