using System.Buffers.Binary;
using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;
using System.Xml.Linq;

namespace Salsa.Services.Tests.Render;

/// <summary>Reading back what the render service draws: SVG fill colours, PNG headers, GeoJSON features.</summary>
internal static partial class Figures
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

    /// <summary>The fill colours (#rrggbb) of the paths drawn with this fill opacity.</summary>
    public static List<string> FillsWithOpacity(XDocument svg, double opacity)
    {
        var wanted = string.Create(CultureInfo.InvariantCulture, $"fill-opacity:{opacity};");
        return [.. svg.Descendants(Svg + "path")
            .Select(p => (string?)p.Attribute("style") ?? "")
            .Where(style => style.Contains(wanted, StringComparison.Ordinal))
            .Select(style => HexOf(FillRgb().Match(style)))];
    }

    /// <summary>The GeoJSON's features.</summary>
    public static List<JsonElement> Features(JsonDocument geojson)
    {
        Assert.Equal("FeatureCollection", geojson.RootElement.GetProperty("type").GetString());
        return [.. geojson.RootElement.GetProperty("features").EnumerateArray()];
    }

    // Cairo writes fills as percentages: fill:rgb(12.156863%,46.666667%,70.588235%).
    private static string HexOf(Match match)
    {
        Assert.True(match.Success, "A path has no rgb() fill.");
        var bytes = Enumerable.Range(1, 3).Select(g => (int)Math.Round(double.Parse(match.Groups[g].Value, CultureInfo.InvariantCulture) * 2.55)).ToArray();
        return string.Create(CultureInfo.InvariantCulture, $"#{bytes[0]:x2}{bytes[1]:x2}{bytes[2]:x2}");
    }

    [GeneratedRegex(@"(?:^|;)fill:rgb\(([0-9.]+)%,\s*([0-9.]+)%,\s*([0-9.]+)%\)")]
    private static partial Regex FillRgb();
}
