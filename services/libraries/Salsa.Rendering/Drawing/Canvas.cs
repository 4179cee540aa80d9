using System.Text;
using SkiaSharp;

namespace Salsa.Rendering.Drawing;

/// <summary>
/// A drawing surface on SkiaSharp: a raster image (PNG out, pixels readable) or an SVG document.
/// Coordinates are in canvas units with the origin top-left and y pointing down. Not thread-safe;
/// separate canvases may be used on separate threads.
/// </summary>
/// <remarks>
/// Skia's native library comes from NuGet (no system graphics or font library is needed) and text
/// is set in the DejaVu Sans embedded in this assembly, so a figure is the same on every machine.
/// An SVG document is complete when the canvas is finished (by a save, <see cref="Finish"/> or
/// <see cref="Dispose"/>), after which it accepts no more drawing; its text stays text.
/// </remarks>
public sealed partial class Canvas : IDisposable
{
    private readonly SKSurface? _surface;
    private readonly SKCanvas _canvas;
    private readonly Stream? _svgTarget;
    private readonly SKPictureRecorder? _recorder;
    private readonly MemoryStream _svgBuffer = new();
    private readonly string? _svgPath;
    private bool _finished;
    private bool _disposed;

    private Canvas(CanvasKind kind, double width, double height, double scale, SKCanvas canvas, SKSurface? surface = null,
        Stream? svgTarget = null, SKPictureRecorder? recorder = null, string? svgPath = null)
    {
        Kind = kind;
        Width = width;
        Height = height;
        Scale = scale;
        _canvas = canvas;
        _surface = surface;
        _svgTarget = svgTarget;
        _recorder = recorder;
        _svgPath = svgPath;
        if (scale != 1)
        {
            _canvas.Scale((float)scale);
        }
    }

    public CanvasKind Kind { get; }

    /// <summary>Width in canvas units.</summary>
    public double Width { get; }

    /// <summary>Height in canvas units.</summary>
    public double Height { get; }

    /// <summary>Device pixels per canvas unit (raster canvases only; 1 for SVG).</summary>
    public double Scale { get; }

    /// <summary>
    /// A transparent RGBA image of <paramref name="width"/>×<paramref name="height"/> units;
    /// <paramref name="scale"/> &gt; 1 renders the same drawing at a higher pixel density.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The image would be larger than Skia can allocate (32,767 pixels a side or 2³¹ bytes).</exception>
    public static Canvas CreateRaster(int width, int height, double scale = 1.0)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(width);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(height);
        if (!double.IsFinite(scale) || scale <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(scale), scale, "The scale must be a positive number.");
        }

        var pixelWidth = Math.Ceiling(width * scale);
        var pixelHeight = Math.Ceiling(height * scale);
        if (pixelWidth > MaxSide || pixelHeight > MaxSide || pixelWidth * pixelHeight * 4 > int.MaxValue)
        {
            throw new ArgumentOutOfRangeException(nameof(width), $"A {pixelWidth}×{pixelHeight}-pixel image is larger than a canvas can be ({MaxSide:N0} pixels a side, 2 GiB).");
        }

        var surface = SKSurface.Create(new SKImageInfo((int)pixelWidth, (int)pixelHeight, SKColorType.Rgba8888, SKAlphaType.Premul))
            ?? throw new InvalidOperationException($"Skia could not allocate a {pixelWidth}×{pixelHeight} image.");
        surface.Canvas.Clear(SKColors.Transparent);
        return new Canvas(CanvasKind.Raster, width, height, scale, surface.Canvas, surface);
    }

    /// <summary>An SVG document built in memory; save it with <see cref="SaveSvg(Stream)"/>, <see cref="SaveSvg(string)"/> or <see cref="ToSvgString"/>.</summary>
    public static Canvas CreateSvg(int width, int height) => CreateSvg(null, null, width, height);

    /// <summary>
    /// An SVG document written straight to <paramref name="path"/>. The file is complete once the
    /// canvas is finished: by <see cref="Finish"/>, by a save, or by <see cref="Dispose"/>.
    /// </summary>
    public static Canvas CreateSvgFile(string path, int width, int height)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        var fullPath = Path.GetFullPath(path);
        return CreateSvg(new FileStream(fullPath, FileMode.Create, FileAccess.ReadWrite, FileShare.None), fullPath, width, height);
    }

    private const int MaxSide = 32_767;

    private static Canvas CreateSvg(Stream? file, string? path, int width, int height)
    {
        try
        {
            ArgumentOutOfRangeException.ThrowIfNegativeOrZero(width);
            ArgumentOutOfRangeException.ThrowIfNegativeOrZero(height);
            // The drawing is recorded, and played into Skia's SVG canvas when the document is finished:
            // nothing streams while drawing, so an abandoned canvas leaves no stream for a finalizer.
            var recorder = new SKPictureRecorder();
            var canvas = recorder.BeginRecording(SKRect.Create(width, height));
            return new Canvas(CanvasKind.Svg, width, height, 1, canvas, svgTarget: file, recorder: recorder, svgPath: path);
        }
        catch
        {
            file?.Dispose();
            throw;
        }
    }

    /// <summary>
    /// Lets Skia-based drawing code (a ScottPlot plot) draw into a rectangle of this canvas, clipped
    /// to it, through the same PNG and SVG output as everything else on the canvas.
    /// </summary>
    internal void DrawWithSkia(double left, double top, double width, double height, Action<SKCanvas, SKRect> draw)
    {
        ArgumentNullException.ThrowIfNull(draw);
        ThrowIfNotDrawable();
        var area = SKRect.Create((float)left, (float)top, (float)width, (float)height);
        _canvas.Save();
        _canvas.ClipRect(area);
        draw(_canvas, area);
        _canvas.Restore();
    }

    /// <summary>Fills the whole canvas with <paramref name="color"/>, replacing what was there.</summary>
    public void Clear(Color color)
    {
        ThrowIfNotDrawable();
        if (Kind == CanvasKind.Raster)
        {
            _canvas.Clear(ToSk(color));
            return;
        }

        // An SVG document has nothing to replace: a rectangle over the whole page.
        using var paint = FillPaint(color);
        _canvas.Save();
        _canvas.ResetMatrix();
        _canvas.DrawRect(SKRect.Create((float)Width, (float)Height), paint);
        _canvas.Restore();
    }

    /// <summary>The pixel at device coordinates (<paramref name="x"/>, <paramref name="y"/>) of a raster canvas, not premultiplied.</summary>
    public Color GetPixel(int x, int y)
    {
        ThrowIfNotKind(CanvasKind.Raster, "Reading pixels");
        using var pixels = _surface!.PeekPixels();
        ArgumentOutOfRangeException.ThrowIfNegative(x);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(x, pixels.Width);
        ArgumentOutOfRangeException.ThrowIfNegative(y);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(y, pixels.Height);
        var c = pixels.GetPixelColor(x, y);
        return c.Alpha == 0 ? Color.Transparent : Color.FromRgb(c.Red, c.Green, c.Blue, c.Alpha);
    }

    /// <summary>Writes the raster image as PNG.</summary>
    public void SavePng(Stream stream)
    {
        ArgumentNullException.ThrowIfNull(stream);
        ThrowIfNotKind(CanvasKind.Raster, "PNG output");
        using var image = _surface!.Snapshot();
        using var png = image.Encode(SKEncodedImageFormat.Png, 100)
            ?? throw new InvalidOperationException("Skia could not encode the image as PNG.");
        png.SaveTo(stream);
    }

    /// <summary>Writes the raster image as a PNG file.</summary>
    public void SavePng(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        ThrowIfNotKind(CanvasKind.Raster, "PNG output");
        using var file = new FileStream(Path.GetFullPath(path), FileMode.Create, FileAccess.Write, FileShare.None);
        SavePng(file);
    }

    public byte[] ToPngBytes()
    {
        using var buffer = new MemoryStream();
        SavePng(buffer);
        return buffer.ToArray();
    }

    /// <summary>Finishes the SVG document (if not already) and writes it to <paramref name="stream"/>.</summary>
    public void SaveSvg(Stream stream)
    {
        ArgumentNullException.ThrowIfNull(stream);
        Finish();
        stream.Write(_svgBuffer.GetBuffer(), 0, checked((int)_svgBuffer.Length));
    }

    /// <summary>Finishes the SVG document (if not already) and writes it to the file at <paramref name="path"/>.</summary>
    public void SaveSvg(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        var fullPath = Path.GetFullPath(path);
        if (_svgPath is not null && string.Equals(fullPath, _svgPath, StringComparison.Ordinal))
        {
            Finish();
            return;
        }

        using var file = new FileStream(fullPath, FileMode.Create, FileAccess.Write, FileShare.None);
        SaveSvg(file);
    }

    public string ToSvgString()
    {
        using var buffer = new MemoryStream();
        SaveSvg(buffer);
        return Encoding.UTF8.GetString(buffer.GetBuffer(), 0, (int)buffer.Length);
    }

    /// <summary>Completes an SVG document; the canvas accepts no more drawing. Saving calls this; calling it again does nothing.</summary>
    public void Finish()
    {
        ThrowIfNotKind(CanvasKind.Svg, "Finishing an SVG document");
        if (_finished)
        {
            return;
        }

        _finished = true;
        using (var picture = _recorder!.EndRecording())
        using (var stream = new SKManagedWStream(_svgBuffer))
        using (var svg = SKSvgCanvas.Create(SKRect.Create((float)Width, (float)Height), stream))
        {
            svg.DrawPicture(picture);
        } // the SVG canvas writes the document's end as it goes

        NumberClipPathsFromOne();
        if (_svgTarget is not null)
        {
            _svgTarget.Write(_svgBuffer.GetBuffer(), 0, checked((int)_svgBuffer.Length));
            _svgTarget.Flush();
        }
    }

    /// <summary>Releases the surface. An SVG canvas is finished first, so its file is complete.</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        try
        {
            if (Kind == CanvasKind.Svg && !_finished)
            {
                Finish();
            }
        }
        finally
        {
            _disposed = true;
            _surface?.Dispose();
            _recorder?.Dispose();
            _svgTarget?.Dispose();
            _svgBuffer.Dispose();
        }
    }

    private void ThrowIfNotKind(CanvasKind kind, string operation)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (Kind != kind)
        {
            throw new InvalidOperationException($"{operation} needs a {kind} canvas; this one is {Kind}.");
        }
    }

    private void ThrowIfNotDrawable()
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (_finished)
        {
            throw new InvalidOperationException("The SVG document has been written (saved or finished); it cannot be drawn on any more.");
        }
    }

    private static SKColor ToSk(Color color) =>
        new(To8(color.R), To8(color.G), To8(color.B), To8(color.A));

    private static byte To8(double channel) => (byte)Math.Round(Math.Clamp(double.IsNaN(channel) ? 0 : channel, 0, 1) * 255);

    private static SKPaint FillPaint(Color color) => new() { Color = ToSk(color), IsAntialias = true, Style = SKPaintStyle.Fill };
}

public enum CanvasKind
{
    Raster,
    Svg,
}
