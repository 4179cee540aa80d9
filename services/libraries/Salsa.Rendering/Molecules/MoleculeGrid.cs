using System.Globalization;
using System.Text;
using System.Xml;

namespace Salsa.Rendering.Molecules;

/// <summary>One cell of a molecule grid: a structure depiction (an SVG document, as RDKit draws it) and the lines under it.</summary>
public sealed record MoleculeCell(string Svg, IReadOnlyList<string> Caption);

/// <summary>
/// A grid of structure depictions in one SVG document — the representatives of a clustering side
/// by side, each with its caption. Each depiction keeps its own coordinate system (a nested
/// <c>svg</c> element placed in its cell), so any drawing's size fits.
/// </summary>
public static class MoleculeGrid
{
    /// <summary>Cells per row at most.</summary>
    public const int MaxColumns = 20;

    private const double CaptionLine = 15;
    private const double TitleBand = 34;

    public static string Compose(IReadOnlyList<MoleculeCell> cells, int columns, int cellSize, string? title)
    {
        ArgumentNullException.ThrowIfNull(cells);
        ArgumentOutOfRangeException.ThrowIfLessThan(columns, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(columns, MaxColumns);
        ArgumentOutOfRangeException.ThrowIfLessThan(cellSize, 60);
        columns = Math.Max(1, Math.Min(columns, cells.Count));
        var captionLines = cells.Count == 0 ? 0 : cells.Max(c => c.Caption.Count);
        var cellHeight = cellSize + (captionLines * CaptionLine) + 8;
        var rows = (cells.Count + columns - 1) / columns;
        var top = string.IsNullOrEmpty(title) ? 0 : TitleBand;
        var (width, height) = (columns * cellSize, top + (rows * cellHeight));

        var text = new StringBuilder();
        using (var svg = XmlWriter.Create(text, new XmlWriterSettings { OmitXmlDeclaration = false, Indent = false }))
        {
            svg.WriteStartElement("svg", "http://www.w3.org/2000/svg");
            svg.WriteAttributeString("width", F(width));
            svg.WriteAttributeString("height", F(height));
            svg.WriteAttributeString("viewBox", $"0 0 {F(width)} {F(height)}");
            svg.WriteAttributeString("font-family", "DejaVu Sans, Arial, sans-serif");
            Rect(svg, 0, 0, width, height, "#ffffff", null);
            if (top > 0)
            {
                Text(svg, 10, 23, title!, 15, "#262626", "start", bold: true);
            }

            for (var i = 0; i < cells.Count; i++)
            {
                var (x, y) = (i % columns * cellSize, top + (i / columns * cellHeight));
                Rect(svg, x + 1, y + 1, cellSize - 2, cellHeight - 2, "#ffffff", "#d0d0d0");
                svg.WriteStartElement("svg");
                svg.WriteAttributeString("x", F(x + 4));
                svg.WriteAttributeString("y", F(y + 4));
                svg.WriteAttributeString("width", F(cellSize - 8));
                svg.WriteAttributeString("height", F(cellSize - 8));
                WriteDepiction(svg, cells[i].Svg);
                svg.WriteEndElement();
                for (var line = 0; line < cells[i].Caption.Count; line++)
                {
                    Text(svg, x + (cellSize / 2.0), y + cellSize + ((line + 0.6) * CaptionLine), cells[i].Caption[line], 11.5, line == 0 ? "#262626" : "#5f6368", "middle", bold: line == 0);
                }
            }

            svg.WriteEndElement();
        }

        return text.ToString().Replace("encoding=\"utf-16\"", "encoding=\"utf-8\"", StringComparison.Ordinal);
    }

    /// <summary>The depiction's root element's content and view box, inside the cell's own <c>svg</c> (its size attributes are the cell's).</summary>
    private static void WriteDepiction(XmlWriter svg, string depiction)
    {
        var document = new XmlDocument { XmlResolver = null };
        using (var reader = XmlReader.Create(new StringReader(depiction), new XmlReaderSettings { DtdProcessing = DtdProcessing.Prohibit, XmlResolver = null }))
        {
            document.Load(reader);
        }

        var root = document.DocumentElement ?? throw new ArgumentException("A depiction is an SVG document.");
        if (root.GetAttribute("viewBox") is { Length: > 0 } viewBox)
        {
            svg.WriteAttributeString("viewBox", viewBox);
        }

        foreach (XmlNode child in root.ChildNodes)
        {
            child.WriteTo(svg);
        }
    }

    private static void Rect(XmlWriter svg, double x, double y, double width, double height, string fill, string? stroke)
    {
        svg.WriteStartElement("rect");
        svg.WriteAttributeString("x", F(x));
        svg.WriteAttributeString("y", F(y));
        svg.WriteAttributeString("width", F(width));
        svg.WriteAttributeString("height", F(height));
        svg.WriteAttributeString("fill", fill);
        if (stroke is not null)
        {
            svg.WriteAttributeString("stroke", stroke);
        }

        svg.WriteEndElement();
    }

    private static void Text(XmlWriter svg, double x, double y, string content, double size, string fill, string anchor, bool bold)
    {
        svg.WriteStartElement("text");
        svg.WriteAttributeString("x", F(x));
        svg.WriteAttributeString("y", F(y));
        svg.WriteAttributeString("font-size", F(size));
        svg.WriteAttributeString("fill", fill);
        svg.WriteAttributeString("text-anchor", anchor);
        if (bold)
        {
            svg.WriteAttributeString("font-weight", "bold");
        }

        svg.WriteString(content);
        svg.WriteEndElement();
    }

    private static string F(double value) => value.ToString("0.##", CultureInfo.InvariantCulture);
}
