using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.Json;

namespace Salsa.Bench.Harness;

/// <summary>
/// What an experiment writes into: result rows, Markdown sections, figures. On completion the
/// harness writes <c>&lt;name&gt;.json</c> (the rows) and <c>&lt;name&gt;.md</c> (machine, notes, tables).
/// </summary>
public sealed class ExperimentContext(string name, bool quick, string resultsDirectory, TextWriter console)
{
    private static readonly JsonSerializerOptions s_json = new() { WriteIndented = true };
    private readonly List<ResultRow> _rows = [];
    private readonly StringBuilder _markdown = new();

    public string Name { get; } = name;

    /// <summary>Smaller sizes and fewer repeats so the run finishes in under a minute.</summary>
    public bool Quick { get; } = quick;

    public string ResultsDirectory { get; } = resultsDirectory;

    public TextWriter Console { get; } = console;

    public Machine Machine { get; } = Machine.Describe();

    public IReadOnlyList<ResultRow> Rows => _rows;

    public void Add(string @case, string metric, double value, string unit)
    {
        _rows.Add(new ResultRow(@case, metric, value, unit));
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  {@case,-60} {metric,-24} {value,14:G6} {unit}"));
    }

    /// <summary>The value of a row already added, for ratios and tables.</summary>
    public double Value(string @case, string metric) =>
        _rows.LastOrDefault(r => r.Case == @case && r.Metric == metric)?.Value ?? double.NaN;

    public void Section(string title, string? text = null)
    {
        _markdown.AppendLine(CultureInfo.InvariantCulture, $"## {title}").AppendLine();
        if (text is not null)
        {
            _markdown.AppendLine(text).AppendLine();
        }
    }

    public void Paragraph(string text) => _markdown.AppendLine(text).AppendLine();

    public void Table(IReadOnlyList<string> header, IEnumerable<IReadOnlyList<string>> rows)
    {
        _markdown.AppendLine("| " + string.Join(" | ", header) + " |");
        _markdown.AppendLine("|" + string.Concat(Enumerable.Repeat("---|", header.Count)));
        foreach (var row in rows)
        {
            _markdown.AppendLine("| " + string.Join(" | ", row) + " |");
        }

        _markdown.AppendLine();
    }

    /// <summary>Path for a figure or side file of this experiment, e.g. <c>FilePath(".svg")</c>.</summary>
    public string FilePath(string suffix) => Path.Combine(ResultsDirectory, Name + suffix);

    /// <summary>Times an action over warm-up and measured repeats; returns each repeat's seconds.</summary>
    public static IReadOnlyList<double> Repeat(int warmups, int repeats, Action action)
    {
        for (var i = 0; i < warmups; i++)
        {
            action();
        }

        var seconds = new double[repeats];
        for (var i = 0; i < repeats; i++)
        {
            var start = Stopwatch.GetTimestamp();
            action();
            seconds[i] = Stopwatch.GetElapsedTime(start).TotalSeconds;
        }

        return seconds;
    }

    internal void Write(string description, TimeSpan elapsed)
    {
        Directory.CreateDirectory(ResultsDirectory);
        File.WriteAllText(FilePath(".json"), JsonSerializer.Serialize(_rows, s_json) + "\n");

        var header = new StringBuilder()
            .AppendLine(CultureInfo.InvariantCulture, $"# {Name}")
            .AppendLine()
            .AppendLine(description)
            .AppendLine()
            .AppendLine(Machine.ToMarkdown())
            .AppendLine()
            .AppendLine(CultureInfo.InvariantCulture, $"Run: {DateTime.UtcNow:yyyy-MM-dd HH:mm} UTC, {(Quick ? "--quick" : "full")}, {elapsed.TotalSeconds:F0} s. " +
                $"Command: `dotnet run -c Release --project bench/Salsa.Bench -- {Name}{(Quick ? " --quick" : "")}`.")
            .AppendLine();
        File.WriteAllText(FilePath(".md"), header.ToString() + _markdown);
    }

    /// <summary>Formats a number for the Markdown tables with a fixed number of significant digits.</summary>
    public static string Format(double value, int significant = 3) =>
        double.IsNaN(value) ? "–" : value.ToString("G" + significant, CultureInfo.InvariantCulture);
}
