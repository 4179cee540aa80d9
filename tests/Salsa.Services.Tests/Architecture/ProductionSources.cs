using System.Text.RegularExpressions;
using Salsa.Testing;

namespace Salsa.Services.Tests.Architecture;

/// <summary>The production sources the architecture tests read: everything under services/ and gateway/ but build output, packages and generated code.</summary>
internal static class ProductionSources
{
    /// <summary>Each file with the given ending, with its path relative to the repository ('/' separated).</summary>
    public static IEnumerable<(string File, string Relative)> Files(string ending)
    {
        foreach (var folder in new[] { "services", "gateway" })
        {
            foreach (var file in Directory.EnumerateFiles(Path.Combine(Repository.Root, folder), "*" + ending, SearchOption.AllDirectories))
            {
                var relative = Path.GetRelativePath(Repository.Root, file).Replace('\\', '/');
                if (!relative.Split('/').Any(p => p is "bin" or "obj" or "node_modules" or "Generated"))
                {
                    yield return (file, relative);
                }
            }
        }
    }

    /// <summary>Every line of a C# file outside the excluded folders that <paramref name="pattern"/> matches, as "path:line: text".</summary>
    public static List<string> Lines(Regex pattern, params string[] excludedFolders) =>
        [.. Files(".cs")
            .Where(f => !excludedFolders.Any(e => f.Relative.StartsWith(e, StringComparison.Ordinal)))
            .SelectMany(f => File.ReadLines(f.File).Select((line, i) => (line, i)).Where(l => pattern.IsMatch(l.line)).Select(l => $"{f.Relative}:{l.i + 1}: {l.line.Trim()}"))];
}
