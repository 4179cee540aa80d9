using System.Xml.Linq;

using Salsa.Rendering.Drawing;

namespace Salsa.Rendering.Tests.Drawing;

public sealed class CanvasTests
{
    private static readonly Color Red = new(1, 0, 0);

    [Fact]
    public void ToPngBytes_RasterCanvas_IsPngOfRequestedSize()
    {
        using var canvas = Canvas.CreateRaster(321, 123);
        canvas.Clear(Color.White);

        var png = canvas.ToPngBytes();

        Assert.Equal((321, 123), PngImage.ReadSize(png));
    }

    [Fact]
    public void SavePng_Path_WritesPngFile()
    {
        var path = Path.Combine(Path.GetTempPath(), $"salsa-graphics-{Guid.NewGuid():N}.png");
        try
        {
            using (var canvas = Canvas.CreateRaster(40, 30))
            {
                canvas.SavePng(path);
            }

            Assert.Equal((40, 30), PngImage.ReadSize(File.ReadAllBytes(path)));
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public void CreateRaster_Scale2_DoublesThePixels()
    {
        using var canvas = Canvas.CreateRaster(50, 20, scale: 2);
        canvas.DrawRectangle(25, 10, 25, 10, Red);

        Assert.Equal((100, 40), PngImage.ReadSize(canvas.ToPngBytes()));
        Assert.Equal(Red, canvas.GetPixel(99, 39));
        Assert.Equal(Color.Transparent, canvas.GetPixel(49, 19));
    }

    [Fact]
    public void GetPixel_InsideRedRectangle_IsRed()
    {
        using var canvas = Canvas.CreateRaster(20, 20);
        canvas.Clear(Color.White);
        canvas.DrawRectangle(5, 5, 10, 10, Red);

        Assert.Equal(Red, canvas.GetPixel(10, 10));
        Assert.Equal(Color.White, canvas.GetPixel(2, 2));
    }

    [Fact]
    public void GetPixel_TranslucentFill_IsUnpremultiplied()
    {
        using var canvas = Canvas.CreateRaster(4, 4);
        canvas.Clear(new Color(0, 0, 1, 0.5));

        var pixel = canvas.GetPixel(1, 1);

        Assert.Equal("#0000ff80", pixel.ToHex());
    }

    [Fact]
    public void GetPixel_OutsideImage_Throws()
    {
        using var canvas = Canvas.CreateRaster(10, 10);

        Assert.Throws<ArgumentOutOfRangeException>(() => canvas.GetPixel(10, 0));
    }

    [Fact]
    public void DrawLine_DashedStroke_LeavesGaps()
    {
        using var canvas = Canvas.CreateRaster(100, 10);
        canvas.DrawLine(0, 5, 100, 5, new Stroke(Red, 2, LineDash.Dashed));

        var row = Enumerable.Range(0, 100).Select(x => canvas.GetPixel(x, 5).A > 0.5).ToArray();

        Assert.Contains(true, row);
        Assert.Contains(false, row);
    }

    [Fact]
    public void DrawPolyline_NaNPoint_LeavesGap()
    {
        using var canvas = Canvas.CreateRaster(100, 10);
        canvas.DrawPolyline([new(0, 5), new(40, 5), new(double.NaN, 5), new(60, 5), new(100, 5)], new Stroke(Red, 2));

        Assert.Equal(Red, canvas.GetPixel(20, 5));
        Assert.Equal(Color.Transparent, canvas.GetPixel(50, 5));
        Assert.Equal(Red, canvas.GetPixel(80, 5));
    }

    [Fact]
    public void DrawPolygon_FillAndStroke_FillsInsideAndOutlines()
    {
        using var canvas = Canvas.CreateRaster(40, 40);
        canvas.DrawPolygon([new(5, 5), new(35, 5), new(35, 35), new(5, 35)], Red, new Stroke(Color.Black, 4));

        Assert.Equal(Red, canvas.GetPixel(20, 20));
        Assert.Equal(Color.Black, canvas.GetPixel(5, 20));
    }

    [Fact]
    public void DrawMarkers_EveryShape_MarksTheCentre()
    {
        foreach (var shape in new[] { MarkerShape.Circle, MarkerShape.Square, MarkerShape.Triangle, MarkerShape.Diamond, MarkerShape.Cross })
        {
            using var canvas = Canvas.CreateRaster(30, 30);
            canvas.DrawMarkers([new(15, 15), new(double.NaN, 3)], shape, 12, Red);

            Assert.True(canvas.GetPixel(15, 15).A > 0.9, $"{shape} did not cover its centre.");
            Assert.Equal(Color.Transparent, canvas.GetPixel(1, 1));
        }
    }

    [Fact]
    public void ClipTo_DrawingOutside_IsNotPainted()
    {
        using var canvas = Canvas.CreateRaster(20, 20);
        using (canvas.ClipTo(0, 0, 10, 20))
        {
            canvas.DrawRectangle(0, 0, 20, 20, Red);
        }

        canvas.DrawCircle(15, 15, 2, Color.Black);

        Assert.Equal(Red, canvas.GetPixel(5, 5));
        Assert.Equal(Color.Transparent, canvas.GetPixel(15, 5));
        Assert.Equal(Color.Black, canvas.GetPixel(15, 15));
    }

    [Fact]
    public void ToSvgString_WithText_IsSvgXmlContainingTheText()
    {
        using var canvas = Canvas.CreateSvg(200, 100);
        canvas.DrawRectangle(10, 10, 50, 30, Red);
        canvas.DrawText("Latency <µs> & ranks", 100, 50, new TextStyle(new Font(14), Color.Black, HorizontalAlignment.Center, VerticalAlignment.Middle, Rotation: 30));

        var document = XDocument.Parse(canvas.ToSvgString());

        XNamespace svg = "http://www.w3.org/2000/svg";
        Assert.Equal(svg + "svg", document.Root!.Name);
        Assert.Equal("200", (string?)document.Root.Attribute("width"));
        Assert.Contains(document.Descendants(svg + "text"), t => t.Value.Trim() == "Latency <µs> & ranks");
    }

    [Fact]
    public void SaveSvg_Twice_WritesTheSameDocument()
    {
        using var canvas = Canvas.CreateSvg(50, 50);
        canvas.DrawText("once", 10, 10, new TextStyle(new Font(), Color.Black));

        Assert.Equal(canvas.ToSvgString(), canvas.ToSvgString());
    }

    [Fact]
    public void DrawLine_AfterSvgSaved_Throws()
    {
        using var canvas = Canvas.CreateSvg(50, 50);
        _ = canvas.ToSvgString();

        Assert.Throws<InvalidOperationException>(() => canvas.DrawLine(0, 0, 1, 1, new Stroke(Red)));
    }

    [Fact]
    public void CreateSvgFile_Disposed_LeavesCompleteSvgFile()
    {
        var path = Path.Combine(Path.GetTempPath(), $"salsa-graphics-{Guid.NewGuid():N}.svg");
        try
        {
            using (var canvas = Canvas.CreateSvgFile(path, 120, 80))
            {
                canvas.DrawText("on disk", 10, 40, new TextStyle(new Font(12), Color.Black));
            }

            var document = XDocument.Load(path);
            Assert.Equal("svg", document.Root!.Name.LocalName);
            Assert.Contains("on disk", document.Root.Value, StringComparison.Ordinal);
        }
        finally
        {
            File.Delete(path);
        }
    }

    [Fact]
    public void Dispose_UnsavedSvgCanvas_ReleasesCleanly()
    {
        var canvas = Canvas.CreateSvg(50, 50);
        canvas.DrawText("never saved", 5, 25, new TextStyle(new Font(), Color.Black));

        canvas.Dispose();
        canvas.Dispose();

        Assert.Throws<ObjectDisposedException>(() => canvas.ToSvgString());
    }

    [Fact]
    public void Finalizer_AbandonedSvgCanvas_ReleasesWithoutCrashing()
    {
        // Abandoned SVG canvases leave Skia objects to their finalizers; nothing may crash then.
        Abandon();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();

        using var canvas = Canvas.CreateSvg(10, 10);
        Assert.StartsWith("<?xml", canvas.ToSvgString(), StringComparison.Ordinal);

        [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
        static void Abandon()
        {
            for (var i = 0; i < 10; i++)
            {
                var canvas = Canvas.CreateSvg(50, 50);
                canvas.DrawCircle(25, 25, 10, Red);
            }
        }
    }

    [Fact]
    public void SavePng_SvgCanvas_ThrowsInvalidOperation()
    {
        using var canvas = Canvas.CreateSvg(10, 10);

        Assert.Throws<InvalidOperationException>(() => canvas.ToPngBytes());
    }

    [Fact]
    public void CreateRaster_AbsurdSize_ThrowsNamingTheSize()
    {
        var error = Assert.Throws<ArgumentOutOfRangeException>(() => Canvas.CreateRaster(100_000, 100_000));

        Assert.Contains("100000×100000-pixel image is larger than a canvas can be", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void SavePng_UnwritablePath_ThrowsNamingThePath()
    {
        using var canvas = Canvas.CreateRaster(10, 10);
        var path = Path.Combine(Path.GetTempPath(), $"missing-{Guid.NewGuid():N}", "out.png");

        var error = Assert.Throws<DirectoryNotFoundException>(() => canvas.SavePng(path));

        Assert.Contains(path, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void SavePng_StreamThatFails_RethrowsTheStreamsException()
    {
        using var canvas = Canvas.CreateRaster(10, 10);
        using var readOnly = new MemoryStream(new byte[16], writable: false);

        Assert.Throws<NotSupportedException>(() => canvas.SavePng(readOnly));
    }

    [Fact]
    public void DrawText_NaNRotation_ThrowsArgumentOutOfRange()
    {
        using var canvas = Canvas.CreateRaster(10, 10);

        var error = Assert.Throws<ArgumentOutOfRangeException>(() => canvas.DrawText("x", 5, 5, new TextStyle(new Font(), Color.Black, Rotation: double.NaN)));

        Assert.Contains("rotation", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void DrawLine_NaNWidth_ThrowsArgumentOutOfRange()
    {
        using var canvas = Canvas.CreateRaster(10, 10);

        Assert.Throws<ArgumentOutOfRangeException>(() => canvas.DrawLine(0, 0, 5, 5, new Stroke(Red, Width: double.NaN)));
    }

    [Fact]
    public void MeasureText_LongerString_IsWider()
    {
        using var canvas = Canvas.CreateRaster(10, 10);
        var font = new Font(12);

        var shortText = canvas.MeasureText("10", font);
        var longText = canvas.MeasureText("10000", font);

        Assert.True(longText.Width > shortText.Width);
        Assert.InRange(shortText.Height, 12, 18);
    }

    [Fact]
    public void DrawText_RightAligned_EndsAtAnchor()
    {
        using var canvas = Canvas.CreateRaster(100, 30);
        canvas.DrawText("MMMM", 50, 15, new TextStyle(new Font(16, Bold: true), Color.Black, HorizontalAlignment.Right, VerticalAlignment.Middle));

        var inked = Enumerable.Range(0, 100).Where(x => canvas.GetPixel(x, 15).A > 0.5).ToArray();

        Assert.NotEmpty(inked);
        Assert.InRange(inked.Max(), 44, 50);
    }
}
