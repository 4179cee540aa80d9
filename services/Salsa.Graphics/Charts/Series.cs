using System.Buffers;

namespace Salsa.Graphics.Charts;

/// <summary>Something a <see cref="Chart"/> draws. Data is copied when the series is added.</summary>
public abstract class Series
{
    private protected Series(string name, SeriesStyle style, Color color)
    {
        ArgumentNullException.ThrowIfNull(name);
        ArgumentNullException.ThrowIfNull(style);
        Name = name;
        Style = style;
        Color = color;
    }

    /// <summary>The legend label; an empty name keeps the series out of the legend.</summary>
    public string Name { get; }

    public SeriesStyle Style { get; }

    /// <summary>The colour drawn: the style's, or the one the chart assigned from the palette.</summary>
    public Color Color { get; }

    internal abstract void IncludeIn(ref DataRange x, ref DataRange y);

    internal abstract void Draw(Canvas canvas, PlotFrame frame);

    /// <summary>Reports where the series has ink, so the legend can avoid it.</summary>
    internal abstract void AddObstacles(PlotFrame frame, LegendObstacles obstacles);

    internal abstract IEnumerable<LegendEntry> LegendEntries();

    private protected static double[] Copy(ReadOnlySpan<double> values, int expectedLength, string parameterName)
    {
        if (values.Length != expectedLength)
        {
            throw new ArgumentException($"Expected {expectedLength} values, got {values.Length}.", parameterName);
        }

        return values.ToArray();
    }
}

/// <summary>Points given by x and y, with optional symmetric y error bars.</summary>
public abstract class XySeries : Series
{
    private readonly double[] _x;
    private readonly double[] _y;
    private readonly double[]? _yErrors;

    private protected XySeries(string name, ReadOnlySpan<double> x, ReadOnlySpan<double> y, ReadOnlySpan<double> yErrors, SeriesStyle style, Color color)
        : base(name, style, color)
    {
        _x = x.ToArray();
        _y = Copy(y, x.Length, nameof(y));
        _yErrors = yErrors.IsEmpty ? null : Copy(yErrors, x.Length, nameof(yErrors));
    }

    public int Count => _x.Length;

    public ReadOnlySpan<double> X => _x;

    public ReadOnlySpan<double> Y => _y;

    internal override void IncludeIn(ref DataRange x, ref DataRange y)
    {
        x.Include(_x);
        for (var i = 0; i < _y.Length; i++)
        {
            if (!double.IsFinite(_x[i]))
            {
                continue;
            }

            y.Include(_y[i]);
            if (_yErrors is not null && double.IsFinite(_yErrors[i]))
            {
                y.Include(_y[i] - _yErrors[i]);
                y.Include(_y[i] + _yErrors[i]);
            }
        }
    }

    internal override void AddObstacles(PlotFrame frame, LegendObstacles obstacles)
    {
        for (var i = 0; i < _x.Length; i++)
        {
            obstacles.Add(frame.ToCanvas(_x[i], _y[i]));
        }
    }

    /// <summary>Runs <paramref name="draw"/> on the points mapped to the canvas, in a pooled buffer.</summary>
    private protected void WithCanvasPoints(PlotFrame frame, Action<ReadOnlySpan<Point>> draw)
    {
        var buffer = ArrayPool<Point>.Shared.Rent(_x.Length);
        try
        {
            var points = buffer.AsSpan(0, _x.Length);
            frame.ToCanvas(_x, _y, points);
            draw(points);
        }
        finally
        {
            ArrayPool<Point>.Shared.Return(buffer);
        }
    }

    private protected void DrawErrorBars(Canvas canvas, PlotFrame frame)
    {
        if (_yErrors is null)
        {
            return;
        }

        var stroke = new Stroke(Color, Math.Max(1, Style.LineWidth * 0.6));
        var cap = Math.Max(3, Style.MarkerSize * 0.5);
        for (var i = 0; i < _x.Length; i++)
        {
            var x = frame.X.ToPixel(_x[i]);
            var low = frame.Y.ToPixel(_y[i] - _yErrors[i]);
            var high = frame.Y.ToPixel(_y[i] + _yErrors[i]);
            if (!double.IsFinite(x) || !double.IsFinite(high) || _yErrors[i] <= 0)
            {
                continue;
            }

            // On a log axis the lower end can fall at or below zero: run it to the frame instead.
            low = double.IsFinite(low) ? low : frame.Bottom;
            canvas.DrawLine(x, low, x, high, stroke);
            canvas.DrawLine(x - cap, low, x + cap, low, stroke);
            canvas.DrawLine(x - cap, high, x + cap, high, stroke);
        }
    }

    private protected void DrawMarkers(Canvas canvas, ReadOnlySpan<Point> points, MarkerShape shape)
    {
        // A thin white edge keeps overlapping markers apart; hollow markers are edged in colour.
        var fill = Style.MarkerFill ?? Color;
        var edge = new Stroke(Style.MarkerFill is null ? Color.White : Color, Style.MarkerFill is null ? 0.6 : 1.5);
        canvas.DrawMarkers(points, shape, Style.MarkerSize, fill, shape == MarkerShape.Cross ? new Stroke(Color, 1.5) : edge);
    }
}

/// <summary>A line through the points in order; NaN points leave a gap.</summary>
public sealed class LineSeries : XySeries
{
    internal LineSeries(string name, ReadOnlySpan<double> x, ReadOnlySpan<double> y, ReadOnlySpan<double> yErrors, SeriesStyle style, Color color)
        : base(name, x, y, yErrors, style, color)
    {
    }

    internal override void Draw(Canvas canvas, PlotFrame frame)
    {
        DrawErrorBars(canvas, frame);
        WithCanvasPoints(frame, points =>
        {
            canvas.DrawPolyline(points, new Stroke(Color, Style.LineWidth, Style.Dash));
            DrawMarkers(canvas, points, Style.Marker);
        });
    }

    internal override void AddObstacles(PlotFrame frame, LegendObstacles obstacles)
    {
        base.AddObstacles(frame, obstacles);
        WithCanvasPoints(frame, obstacles.AddPolyline);
    }

    internal override IEnumerable<LegendEntry> LegendEntries()
    {
        yield return new LegendEntry(Name, LegendSampleKind.Line, Color, Style.LineWidth, Style.Dash, Style.Marker, Style.MarkerSize, Style.MarkerFill);
    }
}

/// <summary>Markers at the points; NaN points are skipped.</summary>
public sealed class ScatterSeries : XySeries
{
    internal ScatterSeries(string name, ReadOnlySpan<double> x, ReadOnlySpan<double> y, ReadOnlySpan<double> yErrors, SeriesStyle style, Color color)
        : base(name, x, y, yErrors, style, color)
    {
    }

    private MarkerShape Shape => Style.Marker == MarkerShape.None ? MarkerShape.Circle : Style.Marker;

    internal override void Draw(Canvas canvas, PlotFrame frame)
    {
        DrawErrorBars(canvas, frame);
        WithCanvasPoints(frame, points => DrawMarkers(canvas, points, Shape));
    }

    internal override IEnumerable<LegendEntry> LegendEntries()
    {
        yield return new LegendEntry(Name, LegendSampleKind.Marker, Color, Style.LineWidth, LineDash.Solid, Shape, Style.MarkerSize, Style.MarkerFill);
    }
}
