using System.Xml.Linq;

namespace Salsa.Testing;

/// <summary>The release this build is, as Directory.Build.props sets it, and what a process says it is.</summary>
public static class Release
{
    /// <summary>The SemVer version of Directory.Build.props (every assembly's).</summary>
    public static string Version { get; } =
        XDocument.Load(Path.Combine(Repository.Root, "Directory.Build.props")).Descendants("Version").Single().Value;

    /// <summary>What <c>dotnet &lt;assembly&gt; --version</c> prints (the build beside the caller), and its exit code.</summary>
    public static async Task<(int ExitCode, string Output)> PrintedByAsync(string assembly, CancellationToken cancellationToken)
    {
        var (code, output, error) = await ExternalProgram.RunAsync(
            "dotnet", AppContext.BaseDirectory, [Path.Combine(AppContext.BaseDirectory, assembly), "--version"], cancellationToken);
        return (code, output.Trim() + error.Trim());
    }
}
