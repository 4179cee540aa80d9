using System.Diagnostics;
using System.Globalization;
using System.Text;

namespace Salsa.Hosting.Timing;

/// <summary>
/// The service's own time for a response, reported as a <c>Server-Timing</c> header (REST) and a
/// <c>server-timing</c> trailer (gRPC) so a caller can tell network from work: <c>app</c> is the time
/// this request spent in the service; a job's <c>queue</c> and <c>compute</c> time are added by the
/// endpoints that report on a job. Format: <c>queue;dur=1.2, compute;dur=840.5, app;dur=3.1</c> (ms).
/// </summary>
public sealed class ServerTimingFeature
{
    private const string App = "app;dur=";

    private List<(string Name, double Milliseconds)>? _entries; // only a job's endpoints add any

    public long StartTimestamp { get; } = Stopwatch.GetTimestamp();

    public void Add(string name, double milliseconds)
    {
        var entries = LazyInitializer.EnsureInitialized(ref _entries);
        lock (entries)
        {
            entries.RemoveAll(e => e.Name == name);
            entries.Add((name, milliseconds));
        }
    }

    public string Format()
    {
        var app = Stopwatch.GetElapsedTime(StartTimestamp).TotalMilliseconds;
        var entries = Volatile.Read(ref _entries);
        if (entries is null)
        {
            // Every response formats one: no builder, no composite format.
            Span<char> text = stackalloc char[64];
            App.CopyTo(text);
            return Milliseconds(app).TryFormat(text[App.Length..], out var written, default, CultureInfo.InvariantCulture)
                ? new string(text[..(App.Length + written)])
                : App + Milliseconds(app).ToString(CultureInfo.InvariantCulture);
        }

        lock (entries)
        {
            var builder = new StringBuilder();
            foreach (var (name, ms) in entries)
            {
                builder.Append(name).Append(";dur=").Append(Milliseconds(ms).ToString(CultureInfo.InvariantCulture)).Append(", ");
            }

            return builder.Append(App).Append(Milliseconds(app).ToString(CultureInfo.InvariantCulture)).ToString();
        }
    }

    /// <summary>Microseconds' precision: 840.5, 3.125.</summary>
    private static double Milliseconds(double value) => Math.Round(value, 3);
}
