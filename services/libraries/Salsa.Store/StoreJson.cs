using System.Text.Json;
using System.Text.Json.Serialization;

namespace Salsa.Store;

/// <summary>Dataset metadata as a JSON object of strings (TEXT in SQLite, jsonb in PostgreSQL).</summary>
internal static class MetadataJson
{
    public static string Serialize(IReadOnlyDictionary<string, string> metadata) =>
        JsonSerializer.Serialize(new Dictionary<string, string>(metadata, StringComparer.Ordinal), MetadataJsonContext.Default.DictionaryStringString);

    public static Dictionary<string, string> Deserialize(string json) =>
        JsonSerializer.Deserialize(json, MetadataJsonContext.Default.DictionaryStringString)
        ?? throw new InvalidDataException("Dataset metadata is not a JSON object.");
}

// Source-generated so that (de)serialising metadata needs no reflection.
[JsonSerializable(typeof(Dictionary<string, string>))]
internal sealed partial class MetadataJsonContext : JsonSerializerContext;

// A job's resources as a JSON object, camel-cased as the APIs show them.
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase)]
[JsonSerializable(typeof(JobResources))]
internal sealed partial class JobResourcesJsonContext : JsonSerializerContext;
