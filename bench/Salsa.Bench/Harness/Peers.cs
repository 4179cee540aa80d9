using System.Diagnostics;
using System.Text.Json;

namespace Salsa.Bench.Harness;

/// <summary>The C programs in <c>bench/peers/</c>, built (and their toolchain installed) by <c>build.sh</c>.</summary>
public static class Peers
{
    private static readonly Lazy<string?> s_buildError = new(Build);

    public static string Directory => Path.Combine(RepositoryRoot(), "bench", "peers");

    /// <summary>Null when the peers are built; otherwise why not.</summary>
    public static string? BuildError => s_buildError.Value;

    public static string PathOf(string name) => Path.Combine(Directory, "build", name);

    /// <summary>Runs a program and parses the last line of its output as JSON.</summary>
    /// <summary>Debian's Python, whose packages (python3-rdkit, python3-sklearn) are the field's own tools.</summary>
    public const string DebianPython = "/usr/bin/python3";

    /// <summary>
    /// Null when Debian's Python imports every one of <paramref name="modules"/> — after
    /// <c>bench/peers/python-peers.sh</c> has installed python3-sklearn and python3-rdkit if they were
    /// missing; otherwise what is missing and the command that installs it (<paramref name="packages"/>).
    /// </summary>
    public static string? MissingPython(string packages, params string[] modules)
    {
        if (Imports(modules))
        {
            return null;
        }

        try
        {
            var start = new ProcessStartInfo("bash", [Path.Combine(Directory, "python-peers.sh")]) { RedirectStandardError = true, UseShellExecute = false };
            using var process = Process.Start(start)!;
            process.StandardError.ReadToEnd();
            process.WaitForExit();
        }
        catch (System.ComponentModel.Win32Exception)
        {
            // Reported below as missing.
        }

        return Imports(modules) ? null : $"Debian's {packages} is not installed and bench/peers/python-peers.sh could not install it (apt-get install {packages}).";
    }

    private static bool Imports(string[] modules)
    {
        if (!File.Exists(DebianPython))
        {
            return false;
        }

        var start = new ProcessStartInfo(DebianPython, ["-c", "import " + string.Join(", ", modules)]) { RedirectStandardError = true, UseShellExecute = false };
        using var probe = Process.Start(start)!;
        probe.StandardError.ReadToEnd();
        probe.WaitForExit();
        return probe.ExitCode == 0;
    }

    public static JsonElement RunJson(string fileName, IEnumerable<string> arguments, TimeSpan timeout, IDictionary<string, string>? environment = null)
    {
        var start = new ProcessStartInfo(fileName) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var (key, value) in environment ?? new Dictionary<string, string>())
        {
            start.Environment[key] = value;
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException($"could not start {fileName}");
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(timeout))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{fileName} did not finish within {timeout.TotalSeconds:F0} s.");
        }

        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"{fileName} exited with {process.ExitCode}: {stderr.Result.Trim()}");
        }

        var last = stdout.Result.Split('\n', StringSplitOptions.RemoveEmptyEntries).Last();
        return JsonDocument.Parse(last).RootElement.Clone();
    }

    private static string? Build()
    {
        try
        {
            var start = new ProcessStartInfo("bash", [Path.Combine(Directory, "build.sh")]) { RedirectStandardError = true, UseShellExecute = false };
            using var process = Process.Start(start)!;
            var errors = process.StandardError.ReadToEnd();
            process.WaitForExit();
            return process.ExitCode == 0 ? null : $"bench/peers/build.sh failed: {errors.Trim()}";
        }
        catch (System.ComponentModel.Win32Exception exception)
        {
            return $"bench/peers/build.sh could not run: {exception.Message}";
        }
    }

    public static string RepositoryRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Salsa.Services.sln")))
            {
                return dir.FullName;
            }
        }

        throw new DirectoryNotFoundException("The repository root (Salsa.Services.sln) was not found above the benchmark's binaries.");
    }
}
