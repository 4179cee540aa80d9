namespace Salsa.Graphics.Charts;

/// <summary>
/// Lays out and draws one chart. Margins come from the measured tick labels and titles; a
/// horizontal axis drops to fewer ticks until its labels stop colliding; the legend goes to the
/// first inside corner that hides no data, else outside on the right.
/// </summary>
internal sealed class ChartRenderer
{
    private static readonly Color Ink = Color.FromHex("#262626");
    private static readonly Color FrameColour = Color.FromHex("#595959");
    private static readonly Color GridColour = Color.FromHex("#e6e6e6");

    private readonly Chart _chart;
    private readonly Canvas _canvas;
    private readonly double _x0;
    private readonly double _y0;
    private readonly double _width;
    private readonly double _height;
    private readonly Font _titleFont;
    private readonly Font _labelFont;
    private readonly Font _tickFont;
    private readonly Font _legendFont;
    private readonly double _pad;
    private readonly double _gap;
    private readonly double _tickLength;
    private readonly string[] _categories;
    private readonly int _barSeries;
    private readonly Scale _xScale;
    private readonly AxisLimits _xLimits;
    private readonly AxisLimits _yLimits;
    private readonly List<LegendEntry> _legendEntries;

    public ChartRenderer(Chart chart, Canvas canvas, double x0, double y0, double width, double height)
    {
        (_chart, _canvas, _x0, _y0, _width, _height) = (chart, canvas, x0, y0, width, height);
        _titleFont = new Font(chart.FontSize * 1.25, Bold: true);
        _labelFont = new Font(chart.FontSize);
        _tickFont = new Font(chart.FontSize * 0.9);
        _legendFont = new Font(chart.FontSize * 0.9);
        _pad = chart.FontSize * 0.9;
        _gap = chart.FontSize * 0.4;
        _tickLength = chart.FontSize * 0.4;

        var bars = chart.Series.OfType<BarSeries>().ToArray();
        if (bars.Length > 0 && bars.Length != chart.Series.Count)
        {
            throw new InvalidOperationException("A chart with bars has a category x axis, so it cannot also hold line or scatter series.");
        }

        _barSeries = bars.Length;
        _categories = [.. bars.SelectMany(b => b.Categories).Distinct(StringComparer.Ordinal)];

        // Categories sit at 0, 1, 2…: their axis is linear whatever the chart's XScale says.
        _xScale = _categories.Length > 0 ? Scale.Linear : chart.XScale;
        var x = new DataRange(_xScale);
        var y = new DataRange(chart.YScale);
        foreach (var series in chart.Series)
        {
            series.IncludeIn(ref x, ref y);
        }

        _xLimits = chart.XLimits ?? (_categories.Length > 0 ? new AxisLimits(-0.5, _categories.Length - 0.5) : x.Padded());
        _yLimits = chart.YLimits ?? y.Padded(anchor: _categories.Length > 0 ? 0 : null);
        CheckLimits(_xLimits, _xScale, "x");
        CheckLimits(_yLimits, chart.YScale, "y");
        _legendEntries = [.. chart.Series.SelectMany(s => s.LegendEntries()).Where(e => e.Label.Length > 0)];
    }

    private bool IsCategorical => _categories.Length > 0;

    public void Render()
    {
        var legend = _legendEntries.Count == 0 || _chart.Legend == LegendPosition.None
            ? null
            : new LegendBox(_canvas, _legendEntries, _legendFont, _height * 0.8);
        var position = legend is null ? LegendPosition.None : _chart.Legend;
        var layout = Lay(position == LegendPosition.OutsideRight ? legend!.Width + _pad : 0);
        if (position == LegendPosition.Auto)
        {
            position = ChooseLegendPosition(layout.Frame, legend!);
            if (position == LegendPosition.OutsideRight)
            {
                layout = Lay(legend!.Width + _pad);
            }
        }

        _canvas.DrawRectangle(_x0, _y0, _width, _height, Color.White);
        DrawGrid(layout);
        var frame = layout.Frame;
        using (_canvas.ClipTo(frame.Left, frame.Top, frame.Width, frame.Height))
        {
            foreach (var series in _chart.Series)
            {
                series.Draw(_canvas, frame);
            }
        }

        _canvas.DrawRectangle(Crisp.Line(frame.Left), Crisp.Line(frame.Top), Crisp.Line(frame.Right) - Crisp.Line(frame.Left), Crisp.Line(frame.Bottom) - Crisp.Line(frame.Top), null, new Stroke(FrameColour));
        DrawAxes(layout);
        DrawTitles(frame);
        if (legend is not null && position != LegendPosition.None)
        {
            var (left, top) = LegendOrigin(frame, legend, position);
            legend.Draw(_canvas, left, top);
        }
    }

    private Layout Lay(double reservedRight)
    {
        var top = _y0 + _pad + (_chart.Title.Length > 0 ? (_titleFont.Size * 1.2) + _gap : 0);
        var right = _x0 + _width - _pad - reservedRight;
        var labelHeight = _labelFont.Size * 1.2;
        var tickHeight = _tickFont.Size * 1.2;
        var xTickBlock = tickHeight;
        var rotate = false;
        var extraLeft = 0.0;
        for (var attempt = 0; ; attempt++)
        {
            var bottom = _y0 + _height - _pad - (_chart.XLabel.Length > 0 ? labelHeight + _gap : 0) - xTickBlock - _gap - _tickLength;
            bottom = Math.Max(bottom, top + 10);
            var yTicks = ChooseTicks(_chart.YScale, _yLimits, bottom - top, horizontal: false);
            var yTickWidth = yTicks.Labels.Select(LabelWidth).DefaultIfEmpty(0).Max();
            var left = _x0 + _pad + (_chart.YLabel.Length > 0 ? labelHeight + _gap : 0) + yTickWidth + _gap + _tickLength + extraLeft;
            right = Math.Max(right, left + 10);

            AxisTicks xTicks;
            if (IsCategorical)
            {
                xTicks = new AxisTicks([.. Enumerable.Range(0, _categories.Length).Select(i => (double)i)], _categories, []);
                var widest = _categories.Max(LabelWidth);
                if (!rotate && widest > 0.9 * (right - left) / _categories.Length && attempt < 3)
                {
                    // Long category names: slant them at 45° and make room below.
                    rotate = true;
                    xTickBlock = (widest + tickHeight) * Math.Sqrt(0.5);
                    continue;
                }

                // A slanted first label runs down to the left of its bar: keep it on the canvas.
                var spill = _x0 + 2 - (left + ((right - left) / _categories.Length / 2) - (LabelWidth(_categories[0]) * Math.Sqrt(0.5)));
                if (rotate && spill > 0.5 && attempt < 3)
                {
                    extraLeft += spill;
                    continue;
                }
            }
            else
            {
                xTicks = ChooseTicks(_xScale, _xLimits, right - left, horizontal: true);
                var map = new AxisMap(_xScale, _xLimits.Min, _xLimits.Max, left, right);
                var overflow = xTicks.Major.Select((v, i) => map.ToPixel(v) + (LabelWidth(xTicks.Labels[i]) / 2)).DefaultIfEmpty(0).Max() - (_x0 + _width - 2 - reservedRight);
                if (overflow > 0.5 && attempt < 3)
                {
                    // The last label would run off the canvas: narrow the plot and try again.
                    right -= overflow;
                    continue;
                }
            }

            var frame = new PlotFrame(
                new AxisMap(_xScale, _xLimits.Min, _xLimits.Max, left, right),
                new AxisMap(_chart.YScale, _yLimits.Min, _yLimits.Max, bottom, top),
                left, top, right, bottom, _categories, _barSeries);
            return new Layout(frame, xTicks, yTicks, rotate);
        }
    }

    /// <summary>
    /// Vertical axes only need room for the label height; horizontal ones start from a spacing
    /// of about five characters and drop ticks until neighbouring labels keep a gap.
    /// </summary>
    private AxisTicks ChooseTicks(Scale scale, AxisLimits limits, double length, bool horizontal)
    {
        if (!horizontal)
        {
            return NiceTicks.For(scale, limits.Min, limits.Max, Math.Clamp((int)(length / (_tickFont.Size * 3.2)) + 1, 2, 10));
        }

        var map = new AxisMap(scale, limits.Min, limits.Max, 0, length);
        for (var maxCount = Math.Clamp((int)(length / (_tickFont.Size * 5)) + 1, 2, 12); ; maxCount--)
        {
            var ticks = NiceTicks.For(scale, limits.Min, limits.Max, maxCount);
            var fits = true;
            for (var i = 1; i < ticks.Major.Count && fits; i++)
            {
                var space = Math.Abs(map.ToPixel(ticks.Major[i]) - map.ToPixel(ticks.Major[i - 1]));
                fits = space >= ((LabelWidth(ticks.Labels[i]) + LabelWidth(ticks.Labels[i - 1])) / 2) + _tickFont.Size;
            }

            if (fits || maxCount == 2)
            {
                return ticks;
            }
        }
    }

    private LegendPosition ChooseLegendPosition(PlotFrame frame, LegendBox legend)
    {
        LegendPosition[] corners = [LegendPosition.UpperRight, LegendPosition.UpperLeft, LegendPosition.LowerLeft, LegendPosition.LowerRight];
        var candidates = corners.Select(c =>
        {
            var (left, top) = LegendOrigin(frame, legend, c);
            return (c, left, top, left + legend.Width, top + legend.Height);
        }).ToArray();
        var obstacles = new LegendObstacles(candidates);
        foreach (var series in _chart.Series)
        {
            series.AddObstacles(frame, obstacles);
        }

        var best = Enumerable.Range(0, corners.Length).MinBy(obstacles.CountAt);
        var fitsInside = legend.Width < frame.Width * 0.9 && legend.Height < frame.Height * 0.9;
        if (fitsInside && obstacles.CountAt(best) == 0)
        {
            return corners[best];
        }

        // Outside costs plot width; a very wide legend is better over some data.
        return legend.Width <= _width * 0.35 || !fitsInside ? LegendPosition.OutsideRight : corners[best];
    }

    private (double Left, double Top) LegendOrigin(PlotFrame frame, LegendBox legend, LegendPosition position)
    {
        var inset = _legendFont.Size * 0.7;
        return position switch
        {
            LegendPosition.UpperLeft => (frame.Left + inset, frame.Top + inset),
            LegendPosition.LowerLeft => (frame.Left + inset, frame.Bottom - inset - legend.Height),
            LegendPosition.LowerRight => (frame.Right - inset - legend.Width, frame.Bottom - inset - legend.Height),
            LegendPosition.OutsideRight => (frame.Right + _pad, frame.Top),
            _ => (frame.Right - inset - legend.Width, frame.Top + inset),
        };
    }

    private void DrawGrid(Layout layout)
    {
        // Major ticks only: a minor grid on a log axis makes the plot look like graph paper.
        var frame = layout.Frame;
        foreach (var v in layout.YTicks.Major)
        {
            var y = Crisp.Line(frame.Y.ToPixel(v));
            _canvas.DrawLine(frame.Left, y, frame.Right, y, new Stroke(GridColour));
        }

        if (IsCategorical)
        {
            return;
        }

        foreach (var v in layout.XTicks.Major)
        {
            var x = Crisp.Line(frame.X.ToPixel(v));
            _canvas.DrawLine(x, frame.Top, x, frame.Bottom, new Stroke(GridColour));
        }
    }

    private void DrawAxes(Layout layout)
    {
        var frame = layout.Frame;
        var tick = new Stroke(FrameColour);
        var bottom = Crisp.Line(frame.Bottom);
        var left = Crisp.Line(frame.Left);
        foreach (var v in layout.XTicks.Minor)
        {
            var x = Crisp.Line(frame.X.ToPixel(v));
            _canvas.DrawLine(x, bottom, x, bottom + (_tickLength * 0.6), tick);
        }

        for (var i = 0; i < layout.XTicks.Major.Count; i++)
        {
            var x = frame.X.ToPixel(layout.XTicks.Major[i]);
            _canvas.DrawLine(Crisp.Line(x), bottom, Crisp.Line(x), bottom + _tickLength, tick);
            var style = layout.RotateXLabels
                ? new TextStyle(_tickFont, Ink, HorizontalAlignment.Right, VerticalAlignment.Top, Rotation: 45)
                : new TextStyle(_tickFont, Ink, HorizontalAlignment.Center, VerticalAlignment.Top);
            _canvas.DrawText(layout.XTicks.Labels[i], x, bottom + _tickLength + _gap, style);
        }

        foreach (var v in layout.YTicks.Minor)
        {
            var y = Crisp.Line(frame.Y.ToPixel(v));
            _canvas.DrawLine(left, y, left - (_tickLength * 0.6), y, tick);
        }

        for (var i = 0; i < layout.YTicks.Major.Count; i++)
        {
            var y = frame.Y.ToPixel(layout.YTicks.Major[i]);
            _canvas.DrawLine(left, Crisp.Line(y), left - _tickLength, Crisp.Line(y), tick);
            _canvas.DrawText(layout.YTicks.Labels[i], left - _tickLength - _gap, y, new TextStyle(_tickFont, Ink, HorizontalAlignment.Right, VerticalAlignment.Middle));
        }
    }

    private void DrawTitles(PlotFrame frame)
    {
        var centreX = (frame.Left + frame.Right) / 2;
        _canvas.DrawText(_chart.Title, centreX, _y0 + _pad, new TextStyle(_titleFont, Ink, HorizontalAlignment.Center, VerticalAlignment.Top));
        _canvas.DrawText(_chart.XLabel, centreX, _y0 + _height - _pad, new TextStyle(_labelFont, Ink, HorizontalAlignment.Center, VerticalAlignment.Bottom));
        _canvas.DrawText(_chart.YLabel, _x0 + _pad, (frame.Top + frame.Bottom) / 2, new TextStyle(_labelFont, Ink, HorizontalAlignment.Center, VerticalAlignment.Top, Rotation: 90));
    }

    private double LabelWidth(string label) => _canvas.MeasureText(label, _tickFont).Width;

    private static void CheckLimits(AxisLimits limits, Scale scale, string axis)
    {
        if (!double.IsFinite(limits.Min) || !double.IsFinite(limits.Max) || limits.Min >= limits.Max)
        {
            throw new InvalidOperationException($"The {axis} axis range {limits.Min}..{limits.Max} is empty or not finite.");
        }

        if (scale == Scale.Log10 && limits.Min <= 0)
        {
            throw new InvalidOperationException($"The {axis} axis is logarithmic but its range {limits.Min}..{limits.Max} is not positive.");
        }
    }

    private sealed record Layout(PlotFrame Frame, AxisTicks XTicks, AxisTicks YTicks, bool RotateXLabels);
}
