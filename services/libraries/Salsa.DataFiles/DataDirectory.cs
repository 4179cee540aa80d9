using System.Collections.Concurrent;
using System.Security.Cryptography;

namespace Salsa.DataFiles;

/// <summary>A shipped data file found and checked: its full path and its manifest entry.</summary>
public sealed record ShippedFile(string FullPath, DataFileEntry Entry);

/// <summary>
/// The folder of shipped data sets and the one way to reach a file in it. Every file handed out is
/// first checked against the built-in <see cref="DataManifest"/>: present, the size it should be,
/// and (once per file and process, and again whenever the file changes) the SHA-256 it should have.
/// A file that fails is a <see cref="DataFileException"/> naming it and the remedy, before anything
/// reads it.
/// </summary>
/// <remarks>
/// The folder is <c>SALSA_DATA</c> when set, otherwise the nearest folder named <c>data</c> that
/// holds the manifest, looking upwards from the working directory and then from the application's
/// base directory: the repository's <c>data/</c> for <c>dotnet run</c> and tests, the copy beside
/// the application for a published build or a container image.
/// </remarks>
public sealed class DataDirectory
{
    /// <summary>Environment variable that names the data folder, overriding discovery.</summary>
    public const string EnvironmentVariable = "SALSA_DATA";

    private static readonly Lazy<DataDirectory> s_default = new(() => new DataDirectory(
        Discover(Environment.GetEnvironmentVariable(EnvironmentVariable), [Directory.GetCurrentDirectory(), AppContext.BaseDirectory])));

    private readonly string? _root;
    private readonly ConcurrentDictionary<string, (long Length, DateTime Written)> _checked = new(StringComparer.Ordinal);

    /// <param name="root">The folder; null when none was found (every file request then says so).</param>
    public DataDirectory(string? root) => _root = root is null ? null : Path.GetFullPath(root);

    /// <summary>The folder found from <c>SALSA_DATA</c> or the working and base directories.</summary>
    public static DataDirectory Default => s_default.Value;

    /// <summary>The folder, or null when none was found.</summary>
    public string? TryGetRoot() => _root;

    public string Root => _root ?? throw new DataFileException(
        "No data folder was found: the repository's data/ (with data/manifest.json) is not above the working directory " +
        $"or the application's directory, and {EnvironmentVariable} is not set. Run from a clone of the repository, " +
        $"or set {EnvironmentVariable} to a folder holding census/, chem/ and fixtures/.");

    /// <summary>
    /// The folder a process uses: <paramref name="fromEnvironment"/> when given (checked file by file
    /// later), otherwise the first <c>data</c> folder holding the manifest above any of <paramref name="starts"/>.
    /// </summary>
    public static string? Discover(string? fromEnvironment, IEnumerable<string> starts)
    {
        ArgumentNullException.ThrowIfNull(starts);
        if (!string.IsNullOrWhiteSpace(fromEnvironment))
        {
            return Path.GetFullPath(fromEnvironment);
        }

        foreach (var start in starts)
        {
            for (var dir = new DirectoryInfo(start); dir is not null; dir = dir.Parent)
            {
                var candidate = Path.Combine(dir.FullName, "data");
                if (File.Exists(Path.Combine(candidate, DataManifest.FileName)))
                {
                    return candidate;
                }
            }
        }

        return null;
    }

    /// <summary>The checked path of a shipped file, e.g. <c>PathOf("fixtures", "gmm2d.csv")</c>.</summary>
    public string PathOf(params string[] parts) => Check(string.Join('/', parts)).FullPath;

    /// <summary>A shipped file (<paramref name="relativePath"/> with forward slashes), checked against the manifest.</summary>
    public ShippedFile Check(string relativePath)
    {
        var entry = DataManifest.Find(relativePath)
            ?? throw new ArgumentException($"'{relativePath}' is not a shipped data file; data/manifest.json lists them.", nameof(relativePath));
        var path = Path.Combine(Root, relativePath);
        var info = new FileInfo(path);
        if (!info.Exists)
        {
            throw new DataFileException($"The data file {relativePath} is missing from {Root}. {Remedy(relativePath)}", Root);
        }

        if (info.Length != entry.Bytes)
        {
            throw new DataFileException(
                $"The data file {relativePath} in {Root} has {info.Length:N0} bytes where the manifest says {entry.Bytes:N0}: it is damaged or from another release. {Remedy(relativePath)}", Root);
        }

        var stamp = (info.Length, info.LastWriteTimeUtc);
        if (!_checked.TryGetValue(relativePath, out var seen) || seen != stamp)
        {
            var actual = Sha256Of(path);
            if (!string.Equals(actual, entry.Sha256, StringComparison.Ordinal))
            {
                throw new DataFileException(
                    $"The data file {relativePath} in {Root} has SHA-256 {actual} where the manifest says {entry.Sha256}: it is damaged or from another release. {Remedy(relativePath)}", Root);
            }

            _checked[relativePath] = stamp;
        }

        return new ShippedFile(path, entry);
    }

    private static string Remedy(string relativePath) =>
        $"Restore it (in a clone of the repository: git checkout -- data/{relativePath}), or set {EnvironmentVariable} to a folder " +
        "holding intact copies; data/README.md lists every file with its size and SHA-256.";

    private static string Sha256Of(string path)
    {
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.Read, 1 << 16, FileOptions.SequentialScan);
        return Convert.ToHexStringLower(SHA256.HashData(stream));
    }
}
