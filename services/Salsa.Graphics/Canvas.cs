using System.Runtime.InteropServices;
using System.Text;
using Salsa.Graphics.Native;

namespace Salsa.Graphics;

/// <summary>
/// A drawing surface: a raster image (PNG out, pixels readable) or an SVG document. Coordinates
/// are in canvas units with the origin top-left and y pointing down. Not thread-safe; separate
/// canvases may be used on separate threads.
/// </summary>
/// <remarks>
/// Every drawing call checks cairo's status, so a failure is a <see cref="CairoException"/> at the
/// call that caused it. An SVG document is written when it is first saved (cairo emits it as a
/// whole), after which the canvas accepts no more drawing.
/// </remarks>
public sealed partial class Canvas : IDisposable
{
    private readonly SurfaceHandle _surface;
    private readonly ContextHandle _context;
    private readonly StreamWriteCallback? _svgSink;
    private readonly MemoryStream? _svgBuffer;
    private readonly string? _svgPath;
    private readonly SvgTextLayer? _textLayer;
    private bool _finished;
    private bool _disposed;

    private Canvas(CanvasKind kind, double width, double height, double scale, SurfaceHandle surface,
        StreamWriteCallback? svgSink = null, MemoryStream? svgBuffer = null, string? svgPath = null)
    {
        Kind = kind;
        Width = width;
        Height = height;
        Scale = scale;
        _surface = surface;
        _svgSink = svgSink;
        _svgBuffer = svgBuffer;
        _svgPath = svgPath;
        _textLayer = kind == CanvasKind.Svg ? new SvgTextLayer() : null;
        try
        {
            Cairo.Check(surface, $"Creating a {width}×{height} {kind} surface");
            _context = Cairo.Create(surface);
            Cairo.Check(_context, "Creating a drawing context");
            Cairo.SetLineJoin(_context, LineJoin.Round);
            if (scale != 1)
            {
                Cairo.Scale(_context, scale, scale);
            }
        }
        catch
        {
            _context?.Dispose();
            surface.Dispose();
            throw;
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
    /// A transparent ARGB32 image of <paramref name="width"/>×<paramref name="height"/> units;
    /// <paramref name="scale"/> &gt; 1 renders the same drawing at a higher pixel density.
    /// </summary>
    /// <exception cref="CairoException">Cairo cannot create the image (e.g. it is larger than 32767 pixels a side).</exception>
    public static Canvas CreateRaster(int width, int height, double scale = 1.0)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(width);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(height);
        if (!double.IsFinite(scale) || scale <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(scale), scale, "The scale must be a positive number.");
        }

        var pixelWidth = (int)Math.Min(int.MaxValue, Math.Ceiling(width * scale));
        var pixelHeight = (int)Math.Min(int.MaxValue, Math.Ceiling(height * scale));
        return new Canvas(CanvasKind.Raster, width, height, scale, Cairo.ImageSurfaceCreate(Format.Argb32, pixelWidth, pixelHeight));
    }

    /// <summary>An SVG document built in memory; save it with <see cref="SaveSvg(Stream)"/>, <see cref="SaveSvg(string)"/> or <see cref="ToSvgString"/>.</summary>
    public static unsafe Canvas CreateSvg(int width, int height)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(width);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(height);
        var buffer = new MemoryStream();
        var sink = new StreamWriteCallback(buffer);
        var target = GCHandle.Alloc(sink);
        SurfaceHandle surface;
        try
        {
            surface = Cairo.SvgSurfaceCreateForStream(StreamWriteCallback.Pointer, GCHandle.ToIntPtr(target), width, height);
        }
        catch
        {
            target.Free();
            throw;
        }

        surface.OwnWriteTarget(target);
        Cairo.SvgSurfaceSetDocumentUnit(surface, SvgUnit.Px);
        return new Canvas(CanvasKind.Svg, width, height, 1, surface, sink, buffer);
    }

    /// <summary>
    /// An SVG document that cairo writes straight to <paramref name="path"/>. The file is complete
    /// once the canvas is finished: by <see cref="Finish"/>, by a save, or by <see cref="Dispose"/>.
    /// </summary>
    public static Canvas CreateSvgFile(string path, int width, int height)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(width);
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(height);
        var fullPath = Path.GetFullPath(path);
        var surface = Cairo.SvgSurfaceCreate(fullPath, width, height);
        var status = Cairo.SurfaceStatus(surface);
        if (status != CairoStatus.Success)
        {
            surface.Dispose();
            throw new CairoException(status, $"Creating SVG file '{fullPath}'");
        }

        Cairo.SvgSurfaceSetDocumentUnit(surface, SvgUnit.Px);
        return new Canvas(CanvasKind.Svg, width, height, 1, surface, svgPath: fullPath);
    }

    /// <summary>Fills the whole canvas with <paramref name="color"/>, replacing what was there.</summary>
    public void Clear(Color color)
    {
        ThrowIfNotDrawable();
        Cairo.Save(_context);
        Cairo.ResetClip(_context);
        SetSource(color);
        Cairo.Paint(_context);
        Cairo.Restore(_context);
        Check("Clear");
    }

    /// <summary>The pixel at device coordinates (<paramref name="x"/>, <paramref name="y"/>) of a raster canvas, not premultiplied.</summary>
    public unsafe Color GetPixel(int x, int y)
    {
        ThrowIfNotKind(CanvasKind.Raster, "Reading pixels");
        var width = Cairo.ImageSurfaceGetWidth(_surface);
        var height = Cairo.ImageSurfaceGetHeight(_surface);
        ArgumentOutOfRangeException.ThrowIfNegative(x);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(x, width);
        ArgumentOutOfRangeException.ThrowIfNegative(y);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(y, height);

        // Cairo may hold drawing back until the surface is flushed.
        Cairo.SurfaceFlush(_surface);
        var data = Cairo.ImageSurfaceGetData(_surface);
        if (data is null)
        {
            throw new CairoException(Cairo.SurfaceStatus(_surface), "Reading the image data");
        }

        // ARGB32 is a native-endian 32-bit word per pixel with premultiplied alpha.
        var pixel = *(uint*)(data + ((long)y * Cairo.ImageSurfaceGetStride(_surface)) + (x * 4L));
        var a = (byte)(pixel >> 24);
        if (a == 0)
        {
            return Color.Transparent;
        }

        return Color.FromRgb(Unpremultiply(pixel >> 16, a), Unpremultiply(pixel >> 8, a), Unpremultiply(pixel, a), a);

        static byte Unpremultiply(uint channel, byte alpha) => (byte)Math.Min(255, (((channel & 0xff) * 255) + (alpha / 2u)) / alpha);
    }

    /// <summary>Writes the raster image as PNG.</summary>
    public unsafe void SavePng(Stream stream)
    {
        ArgumentNullException.ThrowIfNull(stream);
        ThrowIfNotKind(CanvasKind.Raster, "PNG output");
        var sink = new StreamWriteCallback(stream);
        var target = GCHandle.Alloc(sink);
        try
        {
            var status = Cairo.SurfaceWriteToPngStream(_surface, StreamWriteCallback.Pointer, GCHandle.ToIntPtr(target));
            sink.ThrowIfFailed();
            Cairo.Check(status, "Writing PNG to a stream");
        }
        finally
        {
            target.Free();
        }
    }

    /// <summary>Writes the raster image as a PNG file.</summary>
    public void SavePng(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        ThrowIfNotKind(CanvasKind.Raster, "PNG output");
        var fullPath = Path.GetFullPath(path);
        Cairo.Check(Cairo.SurfaceWriteToPng(_surface, fullPath), $"Writing PNG file '{fullPath}'");
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
        if (_svgBuffer is not null)
        {
            stream.Write(_svgBuffer.GetBuffer(), 0, checked((int)_svgBuffer.Length));
        }
        else
        {
            using var file = File.OpenRead(_svgPath!);
            file.CopyTo(stream);
        }
    }

    /// <summary>Finishes the SVG document (if not already) and writes it to the file at <paramref name="path"/>.</summary>
    public void SaveSvg(string path)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        Finish();
        var fullPath = Path.GetFullPath(path);
        if (_svgPath is not null)
        {
            if (!string.Equals(fullPath, _svgPath, StringComparison.Ordinal))
            {
                File.Copy(_svgPath, fullPath, overwrite: true);
            }

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

    /// <summary>
    /// Completes an SVG document: cairo writes it out, a text layer is added (cairo draws glyphs as
    /// outlines, so without it the words could not be searched, selected or read aloud), and the
    /// canvas accepts no more drawing. Saving calls this; calling it again does nothing.
    /// </summary>
    public void Finish()
    {
        ThrowIfNotKind(CanvasKind.Svg, "Finishing an SVG document");
        if (_finished)
        {
            return;
        }

        _finished = true;
        Check("Drawing");
        Cairo.SurfaceFinish(_surface);
        _svgSink?.ThrowIfFailed();
        Cairo.Check(_surface, _svgPath is null ? "Writing the SVG document" : $"Writing SVG file '{_svgPath}'");

        if (_svgBuffer is not null)
        {
            _textLayer!.InsertBeforeEnd(_svgBuffer);
        }
        else
        {
            using var file = new FileStream(_svgPath!, FileMode.Open, FileAccess.ReadWrite, FileShare.None);
            _textLayer!.InsertBeforeEnd(file);
        }
    }

    /// <summary>Releases the native surface. An SVG file canvas is finished first, so its file is complete.</summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        try
        {
            if (_svgPath is not null && !_finished)
            {
                Finish();
            }
        }
        finally
        {
            _disposed = true;
            _context.Dispose();
            _surface.Dispose();
            _svgBuffer?.Dispose();
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

    private void Check(string operation) => Cairo.Check(_context, operation);

    private void SetSource(Color color) => Cairo.SetSourceRgba(_context, color.R, color.G, color.B, color.A);
}

public enum CanvasKind
{
    Raster,
    Svg,
}
