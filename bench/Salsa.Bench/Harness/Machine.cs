using System.Runtime.InteropServices;

namespace Salsa.Bench.Harness;

/// <summary>Describes the machine a benchmark ran on, for the results' header.</summary>
public sealed record Machine(string Cpu, int LogicalCores, string OperatingSystem, string DotNet, string Memory)
{
    public static Machine Describe() => new(
        ReadCpuModel(),
        Environment.ProcessorCount,
        ReadOsName(),
        $"{RuntimeInformation.FrameworkDescription} ({RuntimeInformation.ProcessArchitecture})",
        ReadMemory());

    public string ToMarkdown() =>
        $"Machine: {Cpu}, {LogicalCores} logical cores, {Memory}; {OperatingSystem}; {DotNet}.";

    private static string ReadCpuModel()
    {
        try
        {
            var line = File.ReadLines("/proc/cpuinfo").FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal));
            var flags = File.ReadLines("/proc/cpuinfo").FirstOrDefault(l => l.StartsWith("flags", StringComparison.Ordinal)) ?? "";
            var model = line is null ? RuntimeInformation.ProcessArchitecture.ToString() : line[(line.IndexOf(':') + 1)..].Trim();
            var simd = flags.Contains(" avx512f", StringComparison.Ordinal) ? "AVX-512" : flags.Contains(" avx2", StringComparison.Ordinal) ? "AVX2" : "SSE";
            return $"{model} ({simd})";
        }
        catch (IOException)
        {
            return RuntimeInformation.ProcessArchitecture.ToString();
        }
    }

    private static string ReadOsName()
    {
        try
        {
            var pretty = File.ReadLines("/etc/os-release").FirstOrDefault(l => l.StartsWith("PRETTY_NAME=", StringComparison.Ordinal));
            if (pretty is not null)
            {
                return $"{pretty["PRETTY_NAME=".Length..].Trim('"')}, kernel {Environment.OSVersion.Version}";
            }
        }
        catch (IOException)
        {
        }

        return RuntimeInformation.OSDescription;
    }

    private static string ReadMemory()
    {
        var bytes = GC.GetGCMemoryInfo().TotalAvailableMemoryBytes;
        return $"{bytes / (1024.0 * 1024 * 1024):F0} GiB RAM";
    }
}
