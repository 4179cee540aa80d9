using System.Text.Json;
using System.Text.Json.Serialization;

namespace Salsa.DataFiles;

/// <summary>One shipped data file: its path below the data folder, size, SHA-256 (lowercase hex), rows and licence.</summary>
public sealed record DataFileEntry(string Path, long Bytes, string Sha256, int Rows, string Licence);

/// <summary>
/// The list of shipped data files (<c>data/manifest.json</c>), built into this assembly so a data
/// folder anywhere — the repository's, <c>SALSA_DATA</c>, an image's — is checked against what the
/// code was released with.
/// </summary>
public static class DataManifest
{
    private static readonly Lazy<IReadOnlyList<DataFileEntry>> s_files = new(Load);

    /// <summary>The file name of the manifest inside a data folder; its presence marks the folder.</summary>
    public const string FileName = "manifest.json";

    public static IReadOnlyList<DataFileEntry> Files => s_files.Value;

    /// <summary>The entry for <paramref name="relativePath"/> (forward slashes), or null when it is not a shipped file.</summary>
    public static DataFileEntry? Find(string relativePath) =>
        Files.FirstOrDefault(f => string.Equals(f.Path, relativePath, StringComparison.Ordinal));

    /// <summary>Parses a manifest document.</summary>
    public static IReadOnlyList<DataFileEntry> Parse(Stream json) =>
        JsonSerializer.Deserialize(json, ManifestJson.Default.ManifestDocument)?.Files
        ?? throw new InvalidDataException("The data manifest has no files.");

    private static IReadOnlyList<DataFileEntry> Load()
    {
        using var stream = typeof(DataManifest).Assembly.GetManifestResourceStream("Salsa.DataFiles.manifest.json")
            ?? throw new InvalidOperationException("Salsa.DataFiles was built without its data manifest.");
        return Parse(stream);
    }
}

internal sealed record ManifestDocument(IReadOnlyList<DataFileEntry> Files);

[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(ManifestDocument))]
internal sealed partial class ManifestJson : JsonSerializerContext;
