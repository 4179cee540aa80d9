namespace Salsa.Graphics.Charts;

internal enum LegendSampleKind
{
    Line,
    Marker,
    Box,
}

/// <summary>One legend row: what to draw as its sample, and its label.</summary>
internal readonly record struct LegendEntry(string Label, LegendSampleKind Kind, Color Color, double LineWidth, LineDash Dash, MarkerShape Marker, double MarkerSize, Color? MarkerFill);

/// <summary>A legend's size and drawing: rows of sample and label, in columns when too tall.</summary>
internal sealed class LegendBox
{
    private readonly IReadOnlyList<LegendEntry> _entries;
    private readonly Font _font;
    private readonly double[] _columnWidths;
    private readonly int _rowsPerColumn;

    public LegendBox(Canvas canvas, IReadOnlyList<LegendEntry> entries, Font font, double maxHeight)
    {
        _entries = entries;
        _font = font;
        var fitting = Math.Max(1, (int)Math.Floor((maxHeight - (2 * Padding)) / RowHeight));
        var columns = (entries.Count + fitting - 1) / fitting;
        _rowsPerColumn = Math.Max(1, (entries.Count + columns - 1) / columns);
        _columnWidths = new double[columns];
        for (var i = 0; i < entries.Count; i++)
        {
            var column = i / _rowsPerColumn;
            _columnWidths[column] = Math.Max(_columnWidths[column], canvas.MeasureText(entries[i].Label, font).Width);
        }

        Width = (2 * Padding) + _columnWidths.Sum(w => SampleWidth + Gap + w) + ((columns - 1) * ColumnGap);
        Height = (2 * Padding) + (_rowsPerColumn * RowHeight);
    }

    public double Width { get; }

    public double Height { get; }

    private double RowHeight => _font.Size * 1.5;

    private double Padding => _font.Size * 0.6;

    private double SampleWidth => _font.Size * 2.4;

    private double Gap => _font.Size * 0.5;

    private double ColumnGap => _font.Size * 1.2;

    public void Draw(Canvas canvas, double left, double top)
    {
        canvas.DrawRectangle(Crisp.Line(left), Crisp.Line(top), Math.Round(Width), Math.Round(Height), Color.White.WithAlpha(0.9), new Stroke(Color.FromHex("#c8c8c8")));
        var x = left + Padding;
        for (var column = 0; column < _columnWidths.Length; column++)
        {
            for (var row = 0; row < _rowsPerColumn; row++)
            {
                var index = (column * _rowsPerColumn) + row;
                if (index >= _entries.Count)
                {
                    break;
                }

                var y = top + Padding + (RowHeight * (row + 0.5));
                DrawSample(canvas, _entries[index], x, y);
                canvas.DrawText(_entries[index].Label, x + SampleWidth + Gap, y, new TextStyle(_font, Color.FromHex("#262626"), HorizontalAlignment.Left, VerticalAlignment.Middle));
            }

            x += SampleWidth + Gap + _columnWidths[column] + ColumnGap;
        }
    }

    private void DrawSample(Canvas canvas, in LegendEntry entry, double left, double middle)
    {
        var centre = left + (SampleWidth / 2);
        switch (entry.Kind)
        {
            case LegendSampleKind.Line:
                canvas.DrawLine(left, middle, left + SampleWidth, middle, new Stroke(entry.Color, Math.Min(entry.LineWidth, 4), entry.Dash));
                break;
            case LegendSampleKind.Box:
                var side = _font.Size * 0.9;
                canvas.DrawRectangle(centre - side, middle - (side / 2), 2 * side, side, entry.Color);
                return;
            case LegendSampleKind.Marker:
            default:
                break;
        }

        if (entry.Marker != MarkerShape.None && entry.Color.A > 0)
        {
            var edge = entry.MarkerFill is null ? new Stroke(Color.White, 0.6) : new Stroke(entry.Color, 1.5);
            canvas.DrawMarker(centre, middle, entry.Marker, Math.Min(entry.MarkerSize, _font.Size), entry.MarkerFill ?? entry.Color, entry.Marker == MarkerShape.Cross ? new Stroke(entry.Color, 1.5) : edge);
        }
    }
}
