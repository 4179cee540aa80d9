using System.Globalization;
using System.Text;
using System.Xml;
using Salsa.Graphics.Native;

namespace Salsa.Graphics;

/// <summary>
/// Cairo writes SVG text as glyph outlines, which look right but cannot be searched, selected or
/// read by a screen reader. This layer repeats every string as a transparent <c>&lt;text&gt;</c>
/// element laid exactly over its outlines, as a PDF's hidden text layer does.
/// </summary>
internal sealed class SvgTextLayer
{
    private static readonly byte[] ClosingTag = "</svg>"u8.ToArray();

    private readonly List<Entry> _entries = [];

    public void Add(string text, in Matrix transform, double x, double y, Font font) =>
        _entries.Add(new Entry(text, transform, x, y, font));

    /// <summary>Inserts the layer before the document's closing <c>&lt;/svg&gt;</c>, the last thing cairo writes.</summary>
    public void InsertBeforeEnd(Stream document)
    {
        if (_entries.Count == 0)
        {
            return;
        }

        var tailLength = (int)Math.Min(document.Length, 64);
        var tail = new byte[tailLength];
        document.Position = document.Length - tailLength;
        document.ReadExactly(tail);
        var closing = tail.AsSpan().LastIndexOf(ClosingTag);
        if (closing < 0)
        {
            throw new InvalidDataException("Cairo's SVG output does not end with </svg>; the text layer cannot be added.");
        }

        document.Position = document.Length - tailLength + closing;
        WriteLayer(document);
        document.Write("</svg>\n"u8);
        document.SetLength(document.Position);
    }

    private void WriteLayer(Stream output)
    {
        var settings = new XmlWriterSettings
        {
            ConformanceLevel = ConformanceLevel.Fragment,
            Encoding = new UTF8Encoding(encoderShouldEmitUTF8Identifier: false),
            CloseOutput = false,
            NewLineHandling = NewLineHandling.Entitize,
            Indent = true,
        };
        using var xml = XmlWriter.Create(output, settings);
        xml.WriteStartElement("g", "http://www.w3.org/2000/svg");
        xml.WriteAttributeString("id", "text-layer");
        xml.WriteAttributeString("fill-opacity", "0");
        foreach (var e in _entries)
        {
            var m = e.Transform;
            xml.WriteStartElement("text", "http://www.w3.org/2000/svg");
            xml.WriteAttributeString("transform", $"matrix({Number(m.Xx)} {Number(m.Yx)} {Number(m.Xy)} {Number(m.Yy)} {Number(m.X0)} {Number(m.Y0)})");
            xml.WriteAttributeString("x", Number(e.X));
            xml.WriteAttributeString("y", Number(e.Y));
            xml.WriteAttributeString("font-family", string.IsNullOrEmpty(e.Font.Family) ? Font.DefaultFamily : e.Font.Family);
            xml.WriteAttributeString("font-size", Number(e.Font.Size));
            if (e.Font.Bold)
            {
                xml.WriteAttributeString("font-weight", "bold");
            }

            xml.WriteAttributeString("xml", "space", null, "preserve");
            xml.WriteString(e.Text);
            xml.WriteEndElement();
        }

        xml.WriteEndElement();
    }

    private static string Number(double value) => Math.Round(value, 4).ToString("0.####", CultureInfo.InvariantCulture);

    private readonly record struct Entry(string Text, Matrix Transform, double X, double Y, Font Font);
}
