using System.Text.Json;
using System.Text.Json.Serialization;

namespace Salsa.Grid.Jobs;

/// <summary>
/// The algorithm's state kept in grain state (checkpoints, results) as JSON: every double to the bit
/// (the shortest text that reads back to the same value), −∞ log masses included.
/// </summary>
public static class StateJson
{
    private static readonly JsonSerializerOptions s_options = new(JsonSerializerDefaults.Web)
    {
        NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
    };

    public static string Write<T>(T value) => JsonSerializer.Serialize(value, s_options);

    public static T Read<T>(string json) => JsonSerializer.Deserialize<T>(json, s_options) ?? throw new JsonException($"No {typeof(T).Name} in the state.");
}
