using System.Text.Json;

namespace Salsa.Testing;

/// <summary>
/// Server-sent events checked against the OpenAPI document that describes them: every event's name
/// is one the document maps (<c>x-sse-events</c>), and its data has the members the mapped schema
/// declares — no member it does not declare, every member it requires.
/// </summary>
public static class OpenApiEvents
{
    /// <summary>The schema names each event of <paramref name="path"/>'s GET (or <paramref name="method"/>) sends, from the document.</summary>
    public static Dictionary<string, string> Declared(JsonElement document, string path, string method = "get")
    {
        var media = document.GetProperty("paths").GetProperty(path).GetProperty(method).GetProperty("responses").GetProperty("200")
            .GetProperty("content").GetProperty("text/event-stream");
        return media.GetProperty("x-sse-events").EnumerateObject().ToDictionary(e => e.Name, e => e.Value.GetString()!, StringComparer.Ordinal);
    }

    /// <summary>What keeps <paramref name="data"/>, sent as event <paramref name="name"/>, from fitting the schema the document names for it: nothing when it fits.</summary>
    public static IEnumerable<string> Misfits(JsonElement document, IReadOnlyDictionary<string, string> declared, string name, JsonElement data)
    {
        if (!declared.TryGetValue(name, out var reference))
        {
            yield return $"event '{name}' is not declared (declared: {string.Join(", ", declared.Keys)})";
            yield break;
        }

        var schema = document.GetProperty("components").GetProperty("schemas").GetProperty(reference["#/components/schemas/".Length..]);
        var properties = schema.GetProperty("properties");
        foreach (var member in data.EnumerateObject().Where(m => !properties.TryGetProperty(m.Name, out _)))
        {
            yield return $"event '{name}': member '{member.Name}' is not in {reference}";
        }

        foreach (var required in schema.TryGetProperty("required", out var list) ? list.EnumerateArray().Select(r => r.GetString()!) : [])
        {
            if (!data.TryGetProperty(required, out _))
            {
                yield return $"event '{name}': required member '{required}' of {reference} is missing";
            }
        }
    }
}
