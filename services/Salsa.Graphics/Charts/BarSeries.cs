namespace Salsa.Graphics.Charts;

/// <summary>
/// One bar per category. Bar series of a chart stand side by side within each category (a
/// grouped bar chart), in the order they were added.
/// </summary>
public sealed class BarSeries : Series
{
    // Fraction of a category's slot the group of bars fills; the rest separates the groups.
    private const double GroupWidth = 0.8;

    private readonly string[] _categories;
    private readonly double[] _values;
    private readonly double[]? _errors;

    internal BarSeries(string name, IReadOnlyList<string> categories, ReadOnlySpan<double> values, ReadOnlySpan<double> errors, SeriesStyle style, Color color, int slot)
        : base(name, style, color)
    {
        ArgumentNullException.ThrowIfNull(categories);
        _categories = [.. categories];
        if (_categories.Distinct(StringComparer.Ordinal).Count() != _categories.Length)
        {
            throw new ArgumentException("Each category may appear once in a bar series.", nameof(categories));
        }

        _values = Copy(values, _categories.Length, nameof(values));
        _errors = errors.IsEmpty ? null : Copy(errors, _categories.Length, nameof(errors));
        Slot = slot;
    }

    public IReadOnlyList<string> Categories => _categories;

    public ReadOnlySpan<double> Values => _values;

    /// <summary>This series' place within each group.</summary>
    internal int Slot { get; }

    internal override void IncludeIn(ref DataRange x, ref DataRange y)
    {
        for (var i = 0; i < _values.Length; i++)
        {
            y.Include(_values[i]);
            if (_errors is not null && double.IsFinite(_errors[i]))
            {
                y.Include(_values[i] + _errors[i]);
                y.Include(_values[i] - _errors[i]);
            }
        }
    }

    internal override void Draw(Canvas canvas, PlotFrame frame)
    {
        var baseline = frame.Y.ToPixel(frame.BarBaseline);
        var errorStroke = new Stroke(Color.FromHex("#333333"), 1.2);
        for (var i = 0; i < _values.Length; i++)
        {
            if (!TryGetBar(frame, i, out var left, out var right, out var top))
            {
                continue;
            }

            canvas.DrawRectangle(left, Math.Min(top, baseline), right - left, Math.Abs(baseline - top), Color);
            if (_errors is not null && double.IsFinite(_errors[i]) && _errors[i] > 0)
            {
                var centre = (left + right) / 2;
                var high = frame.Y.ToPixel(_values[i] + _errors[i]);
                var low = frame.Y.ToPixel(_values[i] - _errors[i]);
                low = double.IsFinite(low) ? low : frame.Bottom;
                var cap = Math.Min((right - left) * 0.3, 6);
                canvas.DrawLine(centre, low, centre, high, errorStroke);
                canvas.DrawLine(centre - cap, high, centre + cap, high, errorStroke);
                canvas.DrawLine(centre - cap, low, centre + cap, low, errorStroke);
            }
        }
    }

    internal override void AddObstacles(PlotFrame frame, LegendObstacles obstacles)
    {
        var baseline = frame.Y.ToPixel(frame.BarBaseline);
        for (var i = 0; i < _values.Length; i++)
        {
            if (TryGetBar(frame, i, out var left, out var right, out var top))
            {
                obstacles.AddRectangle(left, Math.Min(top, baseline), right, Math.Max(top, baseline));
            }
        }
    }

    internal override IEnumerable<LegendEntry> LegendEntries()
    {
        yield return new LegendEntry(Name, LegendSampleKind.Box, Color, 0, LineDash.Solid, MarkerShape.None, 0, null);
    }

    private bool TryGetBar(PlotFrame frame, int index, out double left, out double right, out double top)
    {
        var category = frame.CategoryIndex(_categories[index]);
        var barWidth = GroupWidth / frame.BarSeriesCount;
        var start = category - (GroupWidth / 2) + (Slot * barWidth);
        left = frame.X.ToPixel(start);
        right = frame.X.ToPixel(start + barWidth);
        top = frame.Y.ToPixel(_values[index]);
        return double.IsFinite(top);
    }
}
