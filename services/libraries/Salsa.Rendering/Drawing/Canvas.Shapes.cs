using SkiaSharp;

namespace Salsa.Rendering.Drawing;

public sealed partial class Canvas
{
    // Markers are filled a few dozen per path: one path per marker pays the per-draw setup every
    // time, while one path of thousands makes the rasteriser juggle edges across the whole canvas.
    private const int MarkerBatch = 32;

    public void DrawLine(double x1, double y1, double x2, double y2, Stroke stroke)
    {
        ThrowIfNotDrawable();
        using var path = new SKPath();
        path.MoveTo((float)x1, (float)y1);
        path.LineTo((float)x2, (float)y2);
        StrokePath(path, stroke);
    }

    /// <summary>A connected line; a point with a NaN or infinite coordinate leaves a gap.</summary>
    public void DrawPolyline(ReadOnlySpan<Point> points, Stroke stroke)
    {
        ThrowIfNotDrawable();
        using var path = new SKPath();
        var penDown = false;
        foreach (var p in points)
        {
            if (!double.IsFinite(p.X) || !double.IsFinite(p.Y))
            {
                penDown = false;
            }
            else if (penDown)
            {
                path.LineTo((float)p.X, (float)p.Y);
            }
            else
            {
                path.MoveTo((float)p.X, (float)p.Y);
                penDown = true;
            }
        }

        StrokePath(path, stroke);
    }

    /// <summary>A closed shape, filled and then outlined (either may be null).</summary>
    public void DrawPolygon(ReadOnlySpan<Point> points, Color? fill, Stroke? stroke = null)
    {
        ThrowIfNotDrawable();
        if (points.Length < 2)
        {
            return;
        }

        using var path = new SKPath();
        path.MoveTo((float)points[0].X, (float)points[0].Y);
        foreach (var p in points[1..])
        {
            path.LineTo((float)p.X, (float)p.Y);
        }

        path.Close();
        FillAndStrokePath(path, fill, stroke);
    }

    public void DrawCircle(double centreX, double centreY, double radius, Color? fill, Stroke? stroke = null)
    {
        ThrowIfNotDrawable();
        FillAndStroke(fill, stroke, paint => _canvas.DrawCircle((float)centreX, (float)centreY, (float)radius, paint));
    }

    public void DrawRectangle(double x, double y, double width, double height, Color? fill, Stroke? stroke = null)
    {
        ThrowIfNotDrawable();
        var rect = SKRect.Create((float)x, (float)y, (float)width, (float)height);
        FillAndStroke(fill, stroke, paint => _canvas.DrawRect(rect, paint));
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

        if (Kind == CanvasKind.Svg && shape is MarkerShape.Circle or MarkerShape.Square)
        {
            // An SVG document says each as the element it is (<circle>, <rect>), not as a path of curves.
            foreach (var c in centres)
            {
                if (double.IsFinite(c.X) && double.IsFinite(c.Y))
                {
                    var side = size / 2 * 0.9;
                    if (shape == MarkerShape.Circle)
                    {
                        DrawCircle(c.X, c.Y, size / 2, fill, stroke);
                    }
                    else
                    {
                        DrawRectangle(c.X - side, c.Y - side, 2 * side, 2 * side, fill, stroke);
                    }
                }
            }

            return;
        }

        using var path = new SKPath();
        for (var start = 0; start < centres.Length; start += MarkerBatch)
        {
            path.Reset();
            foreach (var c in centres.Slice(start, Math.Min(MarkerBatch, centres.Length - start)))
            {
                if (double.IsFinite(c.X) && double.IsFinite(c.Y))
                {
                    AppendMarker(path, (float)c.X, (float)c.Y, shape, (float)(size / 2));
                }
            }

            FillAndStrokePath(path, fill, stroke);
        }
    }

    /// <summary>Restricts drawing to a rectangle until the returned scope is disposed (dispose scopes in reverse order).</summary>
    public ClipScope ClipTo(double x, double y, double width, double height)
    {
        ThrowIfNotDrawable();
        _canvas.Save();
        _canvas.ClipRect(SKRect.Create((float)x, (float)y, (float)width, (float)height), SKClipOperation.Intersect, antialias: true);
        return new ClipScope(this);
    }

    internal void EndClip()
    {
        if (!_disposed && !_finished)
        {
            _canvas.Restore();
        }
    }

    private static void AppendMarker(SKPath path, float x, float y, MarkerShape shape, float half)
    {
        switch (shape)
        {
            case MarkerShape.Circle:
                path.AddCircle(x, y, half);
                break;
            case MarkerShape.Square:
                // Slightly smaller than the circle's box so both look the same weight.
                var side = half * 0.9f;
                path.AddRect(SKRect.Create(x - side, y - side, 2 * side, 2 * side));
                break;
            case MarkerShape.Triangle:
                // Equilateral, centred on its centroid, pointing up.
                var r = half * 1.2f;
                path.MoveTo(x, y - r);
                path.LineTo(x + (0.866f * r), y + (0.5f * r));
                path.LineTo(x - (0.866f * r), y + (0.5f * r));
                path.Close();
                break;
            case MarkerShape.Diamond:
                var d = half * 1.15f;
                path.MoveTo(x, y - d);
                path.LineTo(x + (0.75f * d), y);
                path.LineTo(x, y + d);
                path.LineTo(x - (0.75f * d), y);
                path.Close();
                break;
            case MarkerShape.Cross:
                var c = half * 0.8f;
                path.MoveTo(x - c, y - c);
                path.LineTo(x + c, y + c);
                path.MoveTo(x - c, y + c);
                path.LineTo(x + c, y - c);
                break;
            case MarkerShape.None:
            default:
                break;
        }
    }

    private void FillAndStrokePath(SKPath path, Color? fill, Stroke? stroke) =>
        FillAndStroke(fill, stroke, paint => _canvas.DrawPath(path, paint));

    private void StrokePath(SKPath path, in Stroke stroke)
    {
        using var paint = StrokePaint(stroke);
        using var dash = paint.PathEffect;
        _canvas.DrawPath(path, paint);
    }

    /// <summary>Draws a shape filled, then outlined, with whichever of the two is given.</summary>
    private static void FillAndStroke(Color? fill, Stroke? stroke, Action<SKPaint> draw)
    {
        if (fill is { } f)
        {
            using var paint = FillPaint(f);
            draw(paint);
        }

        if (stroke is { } s)
        {
            using var paint = StrokePaint(s);
            using var dash = paint.PathEffect;
            draw(paint);
        }
    }

    private static SKPaint StrokePaint(in Stroke stroke)
    {
        if (!double.IsFinite(stroke.Width) || stroke.Width < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(stroke), stroke.Width, "The stroke width must be a finite number, 0 or more.");
        }

        // Matplotlib's dash patterns, in multiples of the line width so thick lines keep their look.
        var unit = (float)Math.Max(1, stroke.Width);
        float[]? dashes = stroke.Dash switch
        {
            LineDash.Dashed => [3.7f * unit, 1.6f * unit],
            LineDash.Dotted => [1f * unit, 1.65f * unit],
            LineDash.DashDot => [6.4f * unit, 1.6f * unit, 1f * unit, 1.6f * unit],
            _ => null,
        };
        // Disposing a paint leaves its path effect to the finalizer: callers dispose both.
        return new SKPaint
        {
            Color = ToSk(stroke.Color),
            IsAntialias = true,
            Style = SKPaintStyle.Stroke,
            StrokeWidth = (float)stroke.Width,
            StrokeJoin = SKStrokeJoin.Round,
            PathEffect = dashes is null ? null : SKPathEffect.CreateDash(dashes, 0),
        };
    }
}
