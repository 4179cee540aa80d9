using System.Globalization;

namespace Salsa.Bench.Harness;

/// <summary>A process's resident memory, from Linux's <c>/proc/&lt;pid&gt;/status</c>; 0 where it cannot be read (another OS, a process gone).</summary>
public static class ProcessMemory
{
    /// <summary>This process's peak resident set (VmHWM), in bytes.</summary>
    public static long PeakResidentBytes() => Read("/proc/self/status", "VmHWM:");

    /// <summary>A process's peak resident set (VmHWM), in bytes.</summary>
    public static long PeakResidentBytes(int processId) => Read($"/proc/{processId}/status", "VmHWM:");

    /// <summary>A process's resident set now (VmRSS), in bytes.</summary>
    public static long ResidentBytes(int processId) => Read($"/proc/{processId}/status", "VmRSS:");

    private static long Read(string path, string key)
    {
        try
        {
            var line = File.ReadLines(path).FirstOrDefault(l => l.StartsWith(key, StringComparison.Ordinal));
            return line is null ? 0 : long.Parse(line[key.Length..].Trim().Split(' ')[0], CultureInfo.InvariantCulture) * 1024;
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return 0; // no /proc, or the process is gone
        }
    }
}
