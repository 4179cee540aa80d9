using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;

namespace Salsa.Gateway.Tests;

/// <summary>
/// Checks a JSON value against a JSON Schema (draft 2020-12) using the keywords the workflow schema's
/// generator writes, and no others: a keyword it does not know is an exception, never skipped. No
/// full validator restores from this machine's NuGet source (JsonSchema.Net lacks JsonPointer.Net;
/// NJsonSchema 10 ignores <c>if</c>/<c>then</c>, <c>const</c> and <c>propertyNames</c>).
/// </summary>
internal sealed class JsonSchemaSubset(JsonObject root)
{
    // Annotations, and keywords read where their owner is (`$defs` through `$ref`, `then` by `if`).
    private static readonly HashSet<string> s_passive = ["$schema", "$comment", "title", "description", "default", "$defs", "then"];

    /// <summary>Every violation found, each as <c>path: what</c>; empty when the value satisfies the schema.</summary>
    public List<string> Errors(JsonNode? instance)
    {
        var errors = new List<string>();
        Evaluate(root, instance, "$", errors);
        return errors;
    }

    private void Evaluate(JsonNode? node, JsonNode? instance, string path, List<string> errors)
    {
        if (node is JsonValue boolean && boolean.TryGetValue<bool>(out var allowed))
        {
            if (!allowed)
            {
                errors.Add($"{path}: not allowed");
            }

            return;
        }

        var schema = node?.AsObject() ?? throw new InvalidDataException($"No schema at {path}.");
        foreach (var (keyword, value) in schema)
        {
            switch (keyword)
            {
                case var passive when s_passive.Contains(passive):
                    break;
                case "$ref":
                    Evaluate(Resolve(value!.GetValue<string>()), instance, path, errors);
                    break;
                case "type":
                    var types = value is JsonArray list ? list.Select(t => t!.GetValue<string>()).ToList() : [value!.GetValue<string>()];
                    if (!types.Any(t => IsType(instance, t)))
                    {
                        errors.Add($"{path}: {Show(instance)} is not of type {string.Join(" or ", types)}");
                    }

                    break;
                case "enum":
                    if (!value!.AsArray().Any(v => JsonNode.DeepEquals(v, instance)))
                    {
                        errors.Add($"{path}: {Show(instance)} is not one of {value.ToJsonString()}");
                    }

                    break;
                case "const":
                    if (!JsonNode.DeepEquals(value, instance))
                    {
                        errors.Add($"{path}: {Show(instance)} is not {value?.ToJsonString()}");
                    }

                    break;
                case "pattern":
                    if (instance is JsonValue text && text.GetValueKind() == JsonValueKind.String
                        && !Regex.IsMatch(text.GetValue<string>(), value!.GetValue<string>(), RegexOptions.ECMAScript))
                    {
                        errors.Add($"{path}: {Show(instance)} does not match {value}");
                    }

                    break;
                case "minLength":
                    if (instance is JsonValue s && s.GetValueKind() == JsonValueKind.String && s.GetValue<string>().Length < Number(value))
                    {
                        errors.Add($"{path}: {Show(instance)} is shorter than {value}");
                    }

                    break;
                case "minimum" or "maximum" or "exclusiveMinimum" or "exclusiveMaximum":
                    if (IsType(instance, "number"))
                    {
                        var (x, bound) = (Number(instance), Number(value));
                        var within = keyword switch
                        {
                            "minimum" => x >= bound,
                            "maximum" => x <= bound,
                            "exclusiveMinimum" => x > bound,
                            _ => x < bound,
                        };
                        if (!within)
                        {
                            errors.Add($"{path}: {x} breaks {keyword} {bound}");
                        }
                    }

                    break;
                case "properties":
                    if (instance is JsonObject withProperties)
                    {
                        foreach (var (name, propertySchema) in value!.AsObject())
                        {
                            if (withProperties.TryGetPropertyValue(name, out var property))
                            {
                                Evaluate(propertySchema, property, $"{path}.{name}", errors);
                            }
                        }
                    }

                    break;
                case "additionalProperties":
                    if (instance is JsonObject withAdditional)
                    {
                        var declared = schema["properties"]?.AsObject();
                        foreach (var (name, property) in withAdditional.Where(p => declared?.ContainsKey(p.Key) != true))
                        {
                            Evaluate(value, property, $"{path}.{name}", errors);
                        }
                    }

                    break;
                case "required":
                    if (instance is JsonObject withRequired)
                    {
                        foreach (var name in value!.AsArray().Select(n => n!.GetValue<string>()).Where(n => !withRequired.ContainsKey(n)))
                        {
                            errors.Add($"{path}: '{name}' is required");
                        }
                    }

                    break;
                case "propertyNames":
                    if (instance is JsonObject named)
                    {
                        foreach (var (name, _) in named)
                        {
                            Evaluate(value, JsonValue.Create(name), $"{path}[name '{name}']", errors);
                        }
                    }

                    break;
                case "minProperties" or "maxItems":
                    var count = instance switch { JsonObject o when keyword == "minProperties" => o.Count, JsonArray a when keyword == "maxItems" => a.Count, _ => (int?)null };
                    if (count is { } n && (keyword == "minProperties" ? n < Number(value) : n > Number(value)))
                    {
                        errors.Add($"{path}: {n} breaks {keyword} {value}");
                    }

                    break;
                case "items":
                    if (instance is JsonArray items)
                    {
                        for (var i = 0; i < items.Count; i++)
                        {
                            Evaluate(value, items[i], $"{path}[{i}]", errors);
                        }
                    }

                    break;
                case "allOf":
                    foreach (var part in value!.AsArray())
                    {
                        Evaluate(part, instance, path, errors);
                    }

                    break;
                case "anyOf":
                    var alternatives = value!.AsArray().Select(part =>
                    {
                        var partErrors = new List<string>();
                        Evaluate(part, instance, path, partErrors);
                        return partErrors;
                    }).ToList();
                    if (alternatives.All(a => a.Count > 0))
                    {
                        errors.Add($"{path}: {Show(instance)} matches no alternative ({string.Join(" | ", alternatives.SelectMany(a => a))})");
                    }

                    break;
                case "if":
                    var condition = new List<string>();
                    Evaluate(value, instance, path, condition);
                    if (condition.Count == 0 && schema["then"] is { } then)
                    {
                        Evaluate(then, instance, path, errors);
                    }

                    break;
                default:
                    throw new NotSupportedException($"The check does not know the keyword '{keyword}' (at {path}); teach it before the generator writes it.");
            }
        }
    }

    private JsonNode Resolve(string reference) =>
        reference.StartsWith("#/$defs/", StringComparison.Ordinal) && root["$defs"]?[reference["#/$defs/".Length..]] is { } target
            ? target
            : throw new NotSupportedException($"Only local $defs references are checked, not '{reference}'.");

    private static bool IsType(JsonNode? instance, string type) => (type, instance?.GetValueKind()) switch
    {
        ("null", null) => true,
        ("object", JsonValueKind.Object) => true,
        ("array", JsonValueKind.Array) => true,
        ("string", JsonValueKind.String) => true,
        ("boolean", JsonValueKind.True or JsonValueKind.False) => true,
        ("number", JsonValueKind.Number) => true,
        ("integer", JsonValueKind.Number) => Number(instance) == Math.Floor(Number(instance)),
        _ => false,
    };

    private static double Number(JsonNode? node) => node.Deserialize<double>();

    private static string Show(JsonNode? node) => node?.ToJsonString() ?? "null";
}
