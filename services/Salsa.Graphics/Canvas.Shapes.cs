using Salsa.Graphics.Native;

namespace Salsa.Graphics;

public sealed partial class Canvas
{
    // Markers go to cairo a few dozen per path: one fill per marker pays cairo's per-fill setup
    // every time, while one path of thousands makes its scan converter juggle edges across the
    // whole canvas. 32 was fastest for 100k 3-unit circles (about 1.8 µs each, against 2.1 µs
    // one by one and 3.5 µs in batches of 2048).
    private const int MarkerBatch = 32;

    public void DrawLine(double x1, double y1, double x2, double y2, Stroke stroke)
    {
        ThrowIfNotDrawable();
        Cairo.MoveTo(_context, x1, y1);
        Cairo.LineTo(_context, x2, y2);
        StrokePath(stroke);
        Check("DrawLine");
    }

    /// <summary>A connected line; a point with a NaN or infinite coordinate leaves a gap.</summary>
    public void DrawPolyline(ReadOnlySpan<Point> points, Stroke stroke)
    {
        ThrowIfNotDrawable();
        var penDown = false;
        foreach (var p in points)
        {
            if (!double.IsFinite(p.X) || !double.IsFinite(p.Y))
            {
                penDown = false;
            }
            else if (penDown)
            {
                Cairo.LineTo(_context, p.X, p.Y);
            }
            else
            {
                Cairo.MoveTo(_context, p.X, p.Y);
                penDown = true;
            }
        }

        StrokePath(stroke);
        Check("DrawPolyline");
    }

    /// <summary>A closed shape, filled and then outlined (either may be null).</summary>
    public void DrawPolygon(ReadOnlySpan<Point> points, Color? fill, Stroke? stroke = null)
    {
        ThrowIfNotDrawable();
        if (points.Length < 2)
        {
            return;
        }

        Cairo.MoveTo(_context, points[0].X, points[0].Y);
        foreach (var p in points[1..])
        {
            Cairo.LineTo(_context, p.X, p.Y);
        }

        Cairo.ClosePath(_context);
        FillAndStrokePath(fill, stroke);
        Check("DrawPolygon");
    }

    public void DrawCircle(double centreX, double centreY, double radius, Color? fill, Stroke? stroke = null)
    {
        ThrowIfNotDrawable();
        Cairo.NewSubPath(_context);
        Cairo.Arc(_context, centreX, centreY, radius, 0, 2 * Math.PI);
        FillAndStrokePath(fill, stroke);
        Check("DrawCircle");
    }

    public void DrawRectangle(double x, double y, double width, double height, Color? fill, Stroke? stroke = null)
    {
        ThrowIfNotDrawable();
        Cairo.Rectangle(_context, x, y, width, height);
        FillAndStrokePath(fill, stroke);
        Check("DrawRectangle");
    }

    /// <summary>One marker centred on (<paramref name="x"/>, <paramref name="y"/>), <paramref name="size"/> units across.</summary>
    public void DrawMarker(double x, double y, MarkerShape shape, double size, Color? fill, Stroke? stroke = null) =>
        DrawMarkers([new Point(x, y)], shape, size, fill, stroke);

    /// <summary>
    /// The same marker at every point; points with NaN coordinates are skipped. Markers are
    /// filled a few dozen at a time as one shape, so translucent markers overlapping within such
    /// a batch do not darken each other. A <see cref="MarkerShape.Cross"/> has no inside: it is stroked with
    /// <paramref name="stroke"/>, or with <paramref name="fill"/> when no stroke is given.
    /// </summary>
    public void DrawMarkers(ReadOnlySpan<Point> centres, MarkerShape shape, double size, Color? fill, Stroke? stroke = null)
    {
        ThrowIfNotDrawable();
        if (shape == MarkerShape.None || size <= 0 || (fill is null && stroke is null))
        {
            return;
        }

        if (shape == MarkerShape.Cross)
        {
            stroke ??= new Stroke(fill!.Value, Math.Max(1, size / 5));
            fill = null;
        }

        for (var start = 0; start < centres.Length; start += MarkerBatch)
        {
            var batch = centres.Slice(start, Math.Min(MarkerBatch, centres.Length - start));
            foreach (var c in batch)
            {
                if (double.IsFinite(c.X) && double.IsFinite(c.Y))
                {
                    AppendMarker(c.X, c.Y, shape, size / 2);
                }
            }

            FillAndStrokePath(fill, stroke);
        }

        Check("DrawMarkers");
    }

    /// <summary>Restricts drawing to a rectangle until the returned scope is disposed (dispose scopes in reverse order).</summary>
    public ClipScope ClipTo(double x, double y, double width, double height)
    {
        ThrowIfNotDrawable();
        Cairo.Save(_context);
        Cairo.Rectangle(_context, x, y, width, height);
        Cairo.Clip(_context);
        Check("ClipTo");
        return new ClipScope(this);
    }

    internal void EndClip()
    {
        if (!_disposed && !_finished)
        {
            Cairo.Restore(_context);
            Check("Ending a clip");
        }
    }

    private void AppendMarker(double x, double y, MarkerShape shape, double half)
    {
        switch (shape)
        {
            case MarkerShape.Circle:
                Cairo.NewSubPath(_context);
                Cairo.Arc(_context, x, y, half, 0, 2 * Math.PI);
                break;
            case MarkerShape.Square:
                // Slightly smaller than the circle's box so both look the same weight.
                var side = half * 0.9;
                Cairo.Rectangle(_context, x - side, y - side, 2 * side, 2 * side);
                break;
            case MarkerShape.Triangle:
                // Equilateral, centred on its centroid, pointing up.
                var r = half * 1.2;
                Cairo.MoveTo(_context, x, y - r);
                Cairo.LineTo(_context, x + (0.866 * r), y + (0.5 * r));
                Cairo.LineTo(_context, x - (0.866 * r), y + (0.5 * r));
                Cairo.ClosePath(_context);
                break;
            case MarkerShape.Diamond:
                var d = half * 1.15;
                Cairo.MoveTo(_context, x, y - d);
                Cairo.LineTo(_context, x + (0.75 * d), y);
                Cairo.LineTo(_context, x, y + d);
                Cairo.LineTo(_context, x - (0.75 * d), y);
                Cairo.ClosePath(_context);
                break;
            case MarkerShape.Cross:
                var c = half * 0.8;
                Cairo.MoveTo(_context, x - c, y - c);
                Cairo.LineTo(_context, x + c, y + c);
                Cairo.MoveTo(_context, x - c, y + c);
                Cairo.LineTo(_context, x + c, y - c);
                break;
            case MarkerShape.None:
            default:
                break;
        }
    }

    private void FillAndStrokePath(Color? fill, Stroke? stroke)
    {
        if (fill is { } f)
        {
            SetSource(f);
            if (stroke is null)
            {
                Cairo.Fill(_context);
                return;
            }

            Cairo.FillPreserve(_context);
        }

        if (stroke is { } s)
        {
            StrokePath(s);
        }
        else
        {
            Cairo.NewPath(_context);
        }
    }

    private unsafe void StrokePath(in Stroke stroke)
    {
        if (!double.IsFinite(stroke.Width) || stroke.Width < 0)
        {
            Cairo.NewPath(_context);
            throw new ArgumentOutOfRangeException(nameof(stroke), stroke.Width, "The stroke width must be a finite number, 0 or more.");
        }

        SetSource(stroke.Color);
        Cairo.SetLineWidth(_context, stroke.Width);

        // Matplotlib's dash patterns, in multiples of the line width so thick lines keep their look.
        var unit = Math.Max(1, stroke.Width);
        Span<double> dashes = stackalloc double[4];
        var count = stroke.Dash switch
        {
            LineDash.Dashed => Pattern(dashes, unit, 3.7, 1.6),
            LineDash.Dotted => Pattern(dashes, unit, 1, 1.65),
            LineDash.DashDot => Pattern(dashes, unit, 6.4, 1.6, 1, 1.6),
            _ => 0,
        };
        fixed (double* pattern = dashes)
        {
            Cairo.SetDash(_context, pattern, count, 0);
        }

        Cairo.Stroke(_context);

        static int Pattern(Span<double> into, double unit, params ReadOnlySpan<double> lengths)
        {
            for (var i = 0; i < lengths.Length; i++)
            {
                into[i] = lengths[i] * unit;
            }

            return lengths.Length;
        }
    }
}

/// <summary>Ends a clip started by <see cref="Canvas.ClipTo"/> when disposed.</summary>
public readonly struct ClipScope : IDisposable
{
    private readonly Canvas? _canvas;

    internal ClipScope(Canvas canvas) => _canvas = canvas;

    public void Dispose() => _canvas?.EndClip();
}
