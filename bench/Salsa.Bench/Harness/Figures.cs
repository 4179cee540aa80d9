using Salsa.Graphics;
using Salsa.Graphics.Charts;

namespace Salsa.Bench.Harness;

/// <summary>Writes an experiment's figure as <c>&lt;name&gt;.svg</c> and <c>&lt;name&gt;.png</c>.</summary>
public static class Figures
{
    public static void Save(ExperimentContext context, Chart chart, int width = 960, int height = 560)
    {
        Directory.CreateDirectory(context.ResultsDirectory);
        chart.RenderSvg(context.FilePath(".svg"), width, height);
        chart.RenderPng(context.FilePath(".png"), width, height);
        context.Paragraph($"![{context.Name}]({context.Name}.png)");
    }

    /// <summary>Several charts in a grid, one figure.</summary>
    public static void SavePanels(ExperimentContext context, IReadOnlyList<Chart> panels, int columns, int panelWidth = 620, int panelHeight = 420)
    {
        Directory.CreateDirectory(context.ResultsDirectory);
        var rows = (panels.Count + columns - 1) / columns;
        var width = columns * panelWidth;
        var height = rows * panelHeight;
        using (var svg = Canvas.CreateSvg(width, height))
        {
            Draw(svg);
            svg.SaveSvg(context.FilePath(".svg"));
        }

        using (var png = Canvas.CreateRaster(width, height))
        {
            Draw(png);
            png.SavePng(context.FilePath(".png"));
        }

        context.Paragraph($"![{context.Name}]({context.Name}.png)");

        void Draw(Canvas canvas)
        {
            canvas.Clear(Color.White);
            for (var i = 0; i < panels.Count; i++)
            {
                panels[i].Draw(canvas, i % columns * panelWidth, i / columns * panelHeight, panelWidth, panelHeight);
            }
        }
    }

    /// <summary>The style of a seed paper's series: dashed, hollow markers.</summary>
    public static SeriesStyle Seed(Color color, MarkerShape marker = MarkerShape.Triangle) =>
        new() { Color = color, Dash = LineDash.Dashed, Marker = marker, MarkerFill = Color.White, LineWidth = 1.5 };

    /// <summary>The style of one of our series: solid, filled markers.</summary>
    public static SeriesStyle Ours(Color color, MarkerShape marker = MarkerShape.Circle) =>
        new() { Color = color, Marker = marker };
}
