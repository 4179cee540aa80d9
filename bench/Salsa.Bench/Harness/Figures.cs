using Salsa.Rendering.Charts;
using ScottPlot;

namespace Salsa.Bench.Harness;

/// <summary>Writes an experiment's figure as <c>&lt;name&gt;.svg</c> and <c>&lt;name&gt;.png</c>, drawn with ScottPlot.</summary>
public static class Figures
{
    public static void Save(ExperimentContext context, Chart chart, int width = 960, int height = 560) =>
        SavePanels(context, [chart], columns: 1, width, height);

    /// <summary>Several charts in a grid, one figure.</summary>
    public static void SavePanels(ExperimentContext context, IReadOnlyList<Chart> panels, int columns, int panelWidth = 620, int panelHeight = 420)
    {
        Directory.CreateDirectory(context.ResultsDirectory);
        var plots = panels.Select(p => p.ToPlot()).ToList();
        try
        {
            File.WriteAllText(context.FilePath(".svg"), ChartStyle.RenderSvg(plots, columns, panelWidth, panelHeight));
            File.WriteAllBytes(context.FilePath(".png"), ChartStyle.RenderPng(plots, columns, panelWidth, panelHeight));
        }
        finally
        {
            plots.ForEach(p => p.Dispose());
        }

        context.Paragraph($"![{context.Name}]({context.Name}.png)");
    }

    /// <summary>Colour <paramref name="index"/> of the project's categorical palette (the maps' too).</summary>
    public static Color Colour(int index) => ChartStyle.Category(index);

    /// <summary>The style of a seed paper's series: dashed, hollow markers.</summary>
    public static SeriesStyle Seed(Color color, MarkerShape marker = MarkerShape.FilledTriangleUp) =>
        new(color) { Dashed = true, Marker = marker, Hollow = true, LineWidth = 1.5f };

    /// <summary>The style of one of our series: solid, filled markers.</summary>
    public static SeriesStyle Ours(Color color, MarkerShape marker = MarkerShape.FilledCircle) =>
        new(color) { Marker = marker };

    /// <summary>A bar series' style.</summary>
    public static SeriesStyle Bars(Color color) => new(color);
}
