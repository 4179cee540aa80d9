using System.Globalization;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using YamlDotNet.Core;
using YamlDotNet.RepresentationModel;

namespace Salsa.Gateway.Workflows;

/// <summary>
/// The words of a workflow file: its keys, what a step id and an output reference look like, how a
/// duration is written, and the YAML core schema's plain scalars. The reader, the checker and the
/// JSON Schema (<see cref="WorkflowSchema"/>) take them from here, so they cannot drift apart.
/// </summary>
public static partial class WorkflowVocabulary
{
    public static readonly string[] TopKeys = ["name", "description", "steps"];

    public static readonly string[] StepKeys = ["service", "operation", "inputs", "parameters", "after", "timeout", "retry", "artifacts"];

    public static readonly string[] RetryKeys = ["attempts", "backoff"];

    /// <summary>A workflow's name and a step's id: lower-case letters, digits and dashes, from a letter.</summary>
    public const string IdPatternText = "^[a-z][a-z0-9-]*$";

    /// <summary>An input's value: an output of another step, <c>step.output</c>.</summary>
    public const string ReferencePatternText = @"^([a-z][a-z0-9-]*)\.([a-zA-Z][a-zA-Z0-9]*)$";

    /// <summary>A duration (<c>500ms</c>, <c>30s</c>, <c>15m</c>, <c>2h</c>, or seconds), surrounding spaces trimmed; null when it is not one.</summary>
    public static TimeSpan? ParseDuration(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        var match = DurationPattern().Match(text.Trim());
        if (!match.Success)
        {
            return null;
        }

        var amount = double.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture);
        try
        {
            return match.Groups[2].Value switch
            {
                "ms" => TimeSpan.FromMilliseconds(amount),
                "" or "s" => TimeSpan.FromSeconds(amount),
                "m" => TimeSpan.FromMinutes(amount),
                "h" => TimeSpan.FromHours(amount),
                _ => null,
            };
        }
        catch (OverflowException)
        {
            return null; // beyond TimeSpan: an error at its line, not a failed request
        }
    }

    /// <summary>YAML → JSON with the core schema's plain scalars: booleans, integers, floats, null.</summary>
    internal static JsonNode? ToJson(YamlNode node) => node switch
    {
        YamlScalarNode { Style: ScalarStyle.Plain, Value: var v } => PlainScalar(v ?? ""),
        YamlScalarNode s => JsonValue.Create(s.Value ?? ""),
        YamlSequenceNode list => new JsonArray([.. list.Children.Select(ToJson)]),
        YamlMappingNode map => new JsonObject(map.Children.Select(kv => KeyValuePair.Create(((YamlScalarNode)kv.Key).Value ?? "", ToJson(kv.Value)))),
        _ => null,
    };

    private static JsonValue? PlainScalar(string value) => value switch
    {
        "" or "~" or "null" or "Null" or "NULL" => null,
        "true" or "True" or "TRUE" => JsonValue.Create(true),
        "false" or "False" or "FALSE" => JsonValue.Create(false),
        _ when IntegerPattern().IsMatch(value) && long.TryParse(value, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var l) => JsonValue.Create(l),
        _ when FloatPattern().IsMatch(value) && double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out var d) => JsonValue.Create(d),
        _ => JsonValue.Create(value),
    };

    [GeneratedRegex(IdPatternText)]
    internal static partial Regex IdPattern();

    [GeneratedRegex(ReferencePatternText)]
    internal static partial Regex ReferencePattern();

    // [0-9], not \d: \d takes any script's digits, which double.Parse then refuses.
    [GeneratedRegex(@"^([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m|h|)$")]
    private static partial Regex DurationPattern();

    [GeneratedRegex(@"^[-+]?[0-9]+$")]
    private static partial Regex IntegerPattern();

    [GeneratedRegex(@"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")]
    private static partial Regex FloatPattern();
}
