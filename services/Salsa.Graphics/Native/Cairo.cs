using System.Runtime.InteropServices;

namespace Salsa.Graphics.Native;

/// <summary>
/// Source-generated bindings to the parts of libcairo 1.16 the canvas uses. Handles are
/// <see cref="SafeHandle"/>s so a surface or context can never be used after it is destroyed, and
/// every function that can fail leaves a status the callers check (see <see cref="Check(CairoStatus, string)"/>).
/// </summary>
internal static unsafe partial class Cairo
{
    private const string Library = "libcairo.so.2";

    // Surfaces.
    [LibraryImport(Library, EntryPoint = "cairo_image_surface_create")]
    internal static partial SurfaceHandle ImageSurfaceCreate(Format format, int width, int height);

    [LibraryImport(Library, EntryPoint = "cairo_image_surface_get_data")]
    internal static partial byte* ImageSurfaceGetData(SurfaceHandle surface);

    [LibraryImport(Library, EntryPoint = "cairo_image_surface_get_stride")]
    internal static partial int ImageSurfaceGetStride(SurfaceHandle surface);

    [LibraryImport(Library, EntryPoint = "cairo_image_surface_get_width")]
    internal static partial int ImageSurfaceGetWidth(SurfaceHandle surface);

    [LibraryImport(Library, EntryPoint = "cairo_image_surface_get_height")]
    internal static partial int ImageSurfaceGetHeight(SurfaceHandle surface);

    [LibraryImport(Library, EntryPoint = "cairo_svg_surface_create", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial SurfaceHandle SvgSurfaceCreate(string fileName, double widthInPoints, double heightInPoints);

    [LibraryImport(Library, EntryPoint = "cairo_svg_surface_create_for_stream")]
    internal static partial SurfaceHandle SvgSurfaceCreateForStream(
        delegate* unmanaged<nint, byte*, uint, CairoStatus> write, nint closure, double widthInPoints, double heightInPoints);

    [LibraryImport(Library, EntryPoint = "cairo_svg_surface_set_document_unit")]
    internal static partial void SvgSurfaceSetDocumentUnit(SurfaceHandle surface, SvgUnit unit);

    [LibraryImport(Library, EntryPoint = "cairo_surface_write_to_png", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial CairoStatus SurfaceWriteToPng(SurfaceHandle surface, string fileName);

    [LibraryImport(Library, EntryPoint = "cairo_surface_write_to_png_stream")]
    internal static partial CairoStatus SurfaceWriteToPngStream(
        SurfaceHandle surface, delegate* unmanaged<nint, byte*, uint, CairoStatus> write, nint closure);

    [LibraryImport(Library, EntryPoint = "cairo_surface_flush")]
    internal static partial void SurfaceFlush(SurfaceHandle surface);

    [LibraryImport(Library, EntryPoint = "cairo_surface_finish")]
    internal static partial void SurfaceFinish(SurfaceHandle surface);

    [LibraryImport(Library, EntryPoint = "cairo_surface_finish")]
    internal static partial void SurfaceFinish(nint surface);

    [LibraryImport(Library, EntryPoint = "cairo_surface_status")]
    internal static partial CairoStatus SurfaceStatus(SurfaceHandle surface);

    [LibraryImport(Library, EntryPoint = "cairo_surface_destroy")]
    internal static partial void SurfaceDestroy(nint surface);

    // Contexts.
    [LibraryImport(Library, EntryPoint = "cairo_create")]
    internal static partial ContextHandle Create(SurfaceHandle target);

    [LibraryImport(Library, EntryPoint = "cairo_destroy")]
    internal static partial void Destroy(nint context);

    [LibraryImport(Library, EntryPoint = "cairo_status")]
    internal static partial CairoStatus Status(ContextHandle context);

    [LibraryImport(Library, EntryPoint = "cairo_save")]
    internal static partial void Save(ContextHandle context);

    [LibraryImport(Library, EntryPoint = "cairo_restore")]
    internal static partial void Restore(ContextHandle context);

    // Source and stroke parameters.
    [LibraryImport(Library, EntryPoint = "cairo_set_source_rgba")]
    internal static partial void SetSourceRgba(ContextHandle context, double red, double green, double blue, double alpha);

    [LibraryImport(Library, EntryPoint = "cairo_set_line_width")]
    internal static partial void SetLineWidth(ContextHandle context, double width);

    [LibraryImport(Library, EntryPoint = "cairo_set_dash")]
    internal static partial void SetDash(ContextHandle context, double* dashes, int count, double offset);

    [LibraryImport(Library, EntryPoint = "cairo_set_line_cap")]
    internal static partial void SetLineCap(ContextHandle context, LineCap cap);

    [LibraryImport(Library, EntryPoint = "cairo_set_line_join")]
    internal static partial void SetLineJoin(ContextHandle context, LineJoin join);

    // Paths. Marker batches call these per point; [SuppressGCTransition] was measured and saved
    // under 5%, not enough to promise the runtime that cairo's path buffer never grows (malloc).
    [LibraryImport(Library, EntryPoint = "cairo_move_to")]
    internal static partial void MoveTo(ContextHandle context, double x, double y);

    [LibraryImport(Library, EntryPoint = "cairo_line_to")]
    internal static partial void LineTo(ContextHandle context, double x, double y);

    [LibraryImport(Library, EntryPoint = "cairo_curve_to")]
    internal static partial void CurveTo(ContextHandle context, double x1, double y1, double x2, double y2, double x3, double y3);

    [LibraryImport(Library, EntryPoint = "cairo_arc")]
    internal static partial void Arc(ContextHandle context, double centreX, double centreY, double radius, double angle1, double angle2);

    [LibraryImport(Library, EntryPoint = "cairo_rectangle")]
    internal static partial void Rectangle(ContextHandle context, double x, double y, double width, double height);

    [LibraryImport(Library, EntryPoint = "cairo_close_path")]
    internal static partial void ClosePath(ContextHandle context);

    [LibraryImport(Library, EntryPoint = "cairo_new_path")]
    internal static partial void NewPath(ContextHandle context);

    [LibraryImport(Library, EntryPoint = "cairo_new_sub_path")]
    internal static partial void NewSubPath(ContextHandle context);

    // Painting.
    [LibraryImport(Library, EntryPoint = "cairo_stroke")]
    internal static partial void Stroke(ContextHandle context);

    [LibraryImport(Library, EntryPoint = "cairo_stroke_preserve")]
    internal static partial void StrokePreserve(ContextHandle context);

    [LibraryImport(Library, EntryPoint = "cairo_fill")]
    internal static partial void Fill(ContextHandle context);

    [LibraryImport(Library, EntryPoint = "cairo_fill_preserve")]
    internal static partial void FillPreserve(ContextHandle context);

    [LibraryImport(Library, EntryPoint = "cairo_paint")]
    internal static partial void Paint(ContextHandle context);

    [LibraryImport(Library, EntryPoint = "cairo_clip")]
    internal static partial void Clip(ContextHandle context);

    [LibraryImport(Library, EntryPoint = "cairo_reset_clip")]
    internal static partial void ResetClip(ContextHandle context);

    // Transformations.
    [LibraryImport(Library, EntryPoint = "cairo_translate")]
    internal static partial void Translate(ContextHandle context, double x, double y);

    [LibraryImport(Library, EntryPoint = "cairo_scale")]
    internal static partial void Scale(ContextHandle context, double x, double y);

    [LibraryImport(Library, EntryPoint = "cairo_rotate")]
    internal static partial void Rotate(ContextHandle context, double radians);

    [LibraryImport(Library, EntryPoint = "cairo_get_matrix")]
    internal static partial void GetMatrix(ContextHandle context, out Matrix matrix);

    // Text (cairo's "toy" API: enough for labels in one font, no shaping).
    [LibraryImport(Library, EntryPoint = "cairo_select_font_face", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial void SelectFontFace(ContextHandle context, string family, FontSlant slant, FontWeight weight);

    [LibraryImport(Library, EntryPoint = "cairo_set_font_size")]
    internal static partial void SetFontSize(ContextHandle context, double size);

    [LibraryImport(Library, EntryPoint = "cairo_text_extents", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial void TextExtents(ContextHandle context, string text, out TextExtents extents);

    [LibraryImport(Library, EntryPoint = "cairo_font_extents")]
    internal static partial void FontExtents(ContextHandle context, out FontExtents extents);

    [LibraryImport(Library, EntryPoint = "cairo_show_text", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial void ShowText(ContextHandle context, string text);

    // Errors. The returned string is static in libcairo and must not be freed, hence the pointer.
    [LibraryImport(Library, EntryPoint = "cairo_status_to_string")]
    private static partial byte* StatusToString(CairoStatus status);

    internal static string Describe(CairoStatus status) =>
        Marshal.PtrToStringUTF8((nint)StatusToString(status)) ?? status.ToString();

    internal static void Check(CairoStatus status, string operation)
    {
        if (status != CairoStatus.Success)
        {
            throw new CairoException(status, operation);
        }
    }

    internal static void Check(ContextHandle context, string operation) => Check(Status(context), operation);

    internal static void Check(SurfaceHandle surface, string operation) => Check(SurfaceStatus(surface), operation);
}

internal enum Format
{
    Argb32 = 0,
}

internal enum SvgUnit
{
    User = 0,
    Em,
    Ex,
    Px,
    In,
    Cm,
    Mm,
    Pt,
    Pc,
    Percent,
}

internal enum LineCap
{
    Butt = 0,
    Round,
    Square,
}

internal enum LineJoin
{
    Miter = 0,
    Round,
    Bevel,
}

internal enum FontSlant
{
    Normal = 0,
    Italic,
    Oblique,
}

internal enum FontWeight
{
    Normal = 0,
    Bold,
}

/// <summary><c>cairo_matrix_t</c>: x' = Xx·x + Xy·y + X0, y' = Yx·x + Yy·y + Y0.</summary>
[StructLayout(LayoutKind.Sequential)]
internal readonly struct Matrix
{
    public readonly double Xx;
    public readonly double Yx;
    public readonly double Xy;
    public readonly double Yy;
    public readonly double X0;
    public readonly double Y0;
}

[StructLayout(LayoutKind.Sequential)]
internal readonly struct TextExtents
{
    public readonly double XBearing;
    public readonly double YBearing;
    public readonly double Width;
    public readonly double Height;
    public readonly double XAdvance;
    public readonly double YAdvance;
}

[StructLayout(LayoutKind.Sequential)]
internal readonly struct FontExtents
{
    public readonly double Ascent;
    public readonly double Descent;
    public readonly double Height;
    public readonly double MaxXAdvance;
    public readonly double MaxYAdvance;
}
