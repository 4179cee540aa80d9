namespace Salsa.Graphics.Charts;

/// <summary>Data values to canvas coordinates along one axis; log axes map log10 of the value.</summary>
internal readonly struct AxisMap
{
    private readonly bool _log;
    private readonly double _origin;
    private readonly double _pixelsPerUnit;
    private readonly double _pixelStart;

    public AxisMap(Scale scale, double min, double max, double pixelStart, double pixelEnd)
    {
        Scale = scale;
        Min = min;
        Max = max;
        _log = scale == Scale.Log10;
        _origin = Transform(min);
        _pixelStart = pixelStart;
        _pixelsPerUnit = (pixelEnd - pixelStart) / (Transform(max) - _origin);
    }

    public Scale Scale { get; }

    public double Min { get; }

    public double Max { get; }

    /// <summary>NaN for values a log axis cannot show (zero, negative), so they are skipped like NaN data.</summary>
    public double ToPixel(double value) => _pixelStart + ((Transform(value) - _origin) * _pixelsPerUnit);

    private double Transform(double value) => _log ? (value > 0 ? Math.Log10(value) : double.NaN) : value;
}

/// <summary>The extent of the data an axis must show; values the scale cannot show are ignored.</summary>
internal struct DataRange(Scale scale)
{
    public double Min { get; private set; } = double.PositiveInfinity;

    public double Max { get; private set; } = double.NegativeInfinity;

    public readonly bool IsEmpty => Min > Max;

    public readonly Scale Scale => scale;

    public void Include(double value)
    {
        if (double.IsFinite(value) && (scale == Scale.Linear || value > 0))
        {
            Min = Math.Min(Min, value);
            Max = Math.Max(Max, value);
        }
    }

    public void Include(ReadOnlySpan<double> values)
    {
        foreach (var v in values)
        {
            Include(v);
        }
    }

    /// <summary>
    /// The axis limits: the data plus 5% each side (in log space for a log axis), so markers at
    /// the ends are not cut by the frame. An end fixed by <paramref name="anchor"/> (bars start at
    /// zero) gets no padding.
    /// </summary>
    public readonly AxisLimits Padded(double? anchor = null)
    {
        if (IsEmpty)
        {
            return scale == Scale.Log10 ? new AxisLimits(1, 10) : new AxisLimits(0, 1);
        }

        var (min, max) = (Min, Max);
        if (anchor is { } a && (scale == Scale.Linear || a > 0))
        {
            (min, max) = (Math.Min(min, a), Math.Max(max, a));
        }

        bool Anchored(double end) => anchor is { } a && end == a && max > min;

        if (scale == Scale.Log10)
        {
            var (lo, hi) = (Math.Log10(min), Math.Log10(max));
            var pad = hi > lo ? (hi - lo) * 0.05 : 0.5;
            return new AxisLimits(
                Anchored(min) ? min : Math.Pow(10, lo - pad),
                Anchored(max) ? max : Math.Pow(10, hi + pad));
        }

        var span = max - min;
        var margin = span > 0 ? span * 0.05 : (min == 0 ? 1 : Math.Abs(min) * 0.1);
        return new AxisLimits(Anchored(min) ? min : min - margin, Anchored(max) ? max : max + margin);
    }
}
