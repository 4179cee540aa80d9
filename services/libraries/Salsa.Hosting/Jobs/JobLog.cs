using System.Globalization;
using System.Text;
using Microsoft.Extensions.Logging;

namespace Salsa.Hosting.Jobs;

/// <summary>The lines of one job, appended from any thread.</summary>
public sealed class JobLog
{
    private readonly object _gate = new();
    private readonly List<string> _lines = [];
    private int _bytes;
    private int _dropped;

    /// <summary>The lines kept, in order.</summary>
    public IReadOnlyList<string> Lines
    {
        get
        {
            lock (_gate)
            {
                return [.. _lines];
            }
        }
    }

    /// <summary>Lines logged after the log reached <see cref="JobLogs.MaxBytesPerJob"/>.</summary>
    public int DroppedLines => Volatile.Read(ref _dropped);

    /// <summary>The lines as text, one per line, with a last line counting any dropped.</summary>
    public string ToText()
    {
        var text = new StringBuilder();
        foreach (var line in Lines)
        {
            text.Append(line).Append('\n');
        }

        if (DroppedLines > 0)
        {
            text.Append(CultureInfo.InvariantCulture, $"… {DroppedLines} more lines not kept (a job's log keeps its first {JobLogs.MaxBytesPerJob / 1024} KB)\n");
        }

        return text.ToString();
    }

    public void Append(LogLevel level, string category, string message, Exception? exception = null)
    {
        var line = string.Create(CultureInfo.InvariantCulture, $"{DateTimeOffset.UtcNow:yyyy-MM-dd'T'HH:mm:ss.fff'Z'} {Level(level)} {category}: {message}{(exception is null ? "" : $" ({exception.GetType().Name})")}");
        lock (_gate)
        {
            if (_bytes + line.Length > JobLogs.MaxBytesPerJob)
            {
                _dropped++;
                return;
            }

            _bytes += line.Length;
            _lines.Add(line);
        }
    }

    private static string Level(LogLevel level) => level switch
    {
        LogLevel.Trace => "trace",
        LogLevel.Debug => "debug",
        LogLevel.Information => "info ",
        LogLevel.Warning => "warn ",
        LogLevel.Error => "error",
        _ => "crit ",
    };
}
