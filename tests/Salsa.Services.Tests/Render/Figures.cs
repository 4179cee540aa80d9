using System.Buffers.Binary;
using System.Globalization;
using System.Text.Json;
using System.Xml.Linq;

namespace Salsa.Services.Tests.Render;

/// <summary>Reading back what the render service draws: SVG fill colours, PNG headers, GeoJSON features.</summary>
internal static class Figures
{
    private static readonly XNamespace Svg = "http://www.w3.org/2000/svg";

    private static ReadOnlySpan<byte> PngSignature => [0x89, (byte)'P', (byte)'N', (byte)'G', 0x0D, 0x0A, 0x1A, 0x0A];

    /// <summary>The size in IHDR, which must be the first chunk after the signature.</summary>
    public static (int Width, int Height) PngSize(ReadOnlySpan<byte> png)
    {
        Assert.True(png.StartsWith(PngSignature), "The data does not start with the PNG signature.");
        var chunk = png[PngSignature.Length..];
        Assert.Equal(13u, BinaryPrimitives.ReadUInt32BigEndian(chunk));
        Assert.True(chunk[4..8].SequenceEqual("IHDR"u8), "The first chunk is not IHDR.");
        return ((int)BinaryPrimitives.ReadUInt32BigEndian(chunk[8..]), (int)BinaryPrimitives.ReadUInt32BigEndian(chunk[12..]));
    }

    /// <summary>The document, which must be well-formed SVG.</summary>
    public static XDocument ParseSvg(string svg)
    {
        var document = XDocument.Parse(svg);
        Assert.Equal(Svg + "svg", document.Root!.Name);
        return document;
    }

    /// <summary>The fill colours (#rrggbb) of the shapes (paths, circles, rectangles) drawn with this fill opacity.</summary>
    public static List<string> FillsWithOpacity(XDocument svg, double opacity) =>
        [.. svg.Descendants()
            .Where(e => e.Name.LocalName is "path" or "circle" or "ellipse" or "rect" && (string?)e.Attribute("fill") is { } fill && fill != "none"
                && Math.Abs(double.Parse((string?)e.Attribute("fill-opacity") ?? "1", CultureInfo.InvariantCulture) - opacity) < 1 / 255.0) // opacity is kept to 8 bits
            .Select(e => ((string?)e.Attribute("fill"))!.ToLowerInvariant())];

    /// <summary>The GeoJSON's features.</summary>
    public static List<JsonElement> Features(JsonDocument geojson)
    {
        Assert.Equal("FeatureCollection", geojson.RootElement.GetProperty("type").GetString());
        return [.. geojson.RootElement.GetProperty("features").EnumerateArray()];
    }
}
