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

    /// <summary>The longest a step's <c>timeout</c> may be (a timer waits at most 24.8 days).</summary>
    public static readonly TimeSpan MaxTimeout = TimeSpan.FromDays(7);

    /// <summary>The longest a retry's <c>backoff</c> may be: it doubles up to 256 times that before the tenth attempt.</summary>
    public static readonly TimeSpan MaxBackoff = TimeSpan.FromHours(1);

    /// <summary>A limit's duration in words: <c>7 days</c>, <c>1 hour</c>.</summary>
    internal static string Describe(TimeSpan duration)
    {
        var (amount, unit) = duration.TotalDays >= 1 ? (duration.TotalDays, "day") : duration.TotalHours >= 1 ? (duration.TotalHours, "hour") : (duration.TotalMinutes, "minute");
        return string.Create(CultureInfo.InvariantCulture, $"{amount:0.#} {unit}{(amount == 1 ? "" : "s")}");
    }

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

    /// <summary>
    /// YAML → JSON with the core schema's plain scalars: booleans, integers, floats, null. The node was
    /// read within <see cref="YamlBudget"/>, so its expansion fits the limits; the walk counts nodes,
    /// bytes and levels once more as it builds (a node shared by aliases is copied where each stands),
    /// so the JSON is bounded whatever built the node. A number beyond a double's range is an error at
    /// its position (not infinity, which JSON cannot hold); so is a key that is not a plain name.
    /// </summary>
    internal static JsonNode? ToJson(YamlNode node, WorkflowLimits limits, List<WorkflowError> errors)
    {
        ArgumentNullException.ThrowIfNull(limits);
        long nodes = 0, bytes = 0;
        return Convert(node, 0);

        JsonNode? Convert(YamlNode yaml, int levels)
        {
            if (++nodes > limits.MaxNodes)
            {
                throw WorkflowParser.Beyond($"A parameter expands to more than {limits.MaxNodes:N0} nodes", limits.MaxNodes, "nodes", nameof(WorkflowLimits.MaxNodes));
            }

            if (yaml is YamlScalarNode scalar)
            {
                var text = scalar.Value ?? "";
                if ((bytes += text.Length) > limits.MaxValueBytes)
                {
                    throw WorkflowParser.Beyond($"A parameter expands to more than {limits.MaxValueBytes:N0} bytes of values", limits.MaxValueBytes, "bytes of values", nameof(WorkflowLimits.MaxValueBytes));
                }

                if (scalar.Style != ScalarStyle.Plain)
                {
                    return JsonValue.Create(text);
                }

                if (PlainScalar(text) is var (value, finite) && !finite)
                {
                    errors.Add(WorkflowReader.At(yaml, $"'{Shorten(text)}' is beyond the range of a number (at most ±1.8e308)"));
                    return null;
                }

                return value;
            }

            if (levels >= limits.MaxDepth)
            {
                throw WorkflowParser.Beyond($"A parameter nests more than {limits.MaxDepth:N0} levels of lists and mappings", limits.MaxDepth, "levels", nameof(WorkflowLimits.MaxDepth));
            }

            switch (yaml)
            {
                case YamlSequenceNode list:
                    var array = new JsonArray();
                    foreach (var child in list.Children)
                    {
                        array.Add(Convert(child, levels + 1));
                    }

                    return array;
                case YamlMappingNode map:
                    var json = new JsonObject();
                    foreach (var (key, child) in map.Children)
                    {
                        if (WorkflowReader.Key(key, errors) is { } name)
                        {
                            json[name] = Convert(child, levels + 1);
                        }
                    }

                    return json;
                default:
                    return null;
            }
        }
    }

    /// <summary>A value as an error quotes it: the first 40 characters.</summary>
    internal static string Shorten(string text) => text.Length <= 40 ? text : string.Concat(text.AsSpan(0, 40), "…");

    // A plain scalar's value, and false for a float beyond a double's range (which parses as infinity).
    private static (JsonValue? Value, bool Finite) PlainScalar(string value) => value switch
    {
        "" or "~" or "null" or "Null" or "NULL" => (null, true),
        "true" or "True" or "TRUE" => (JsonValue.Create(true), true),
        "false" or "False" or "FALSE" => (JsonValue.Create(false), true),
        _ when IntegerPattern().IsMatch(value) && long.TryParse(value, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var l) => (JsonValue.Create(l), true),
        _ when FloatPattern().IsMatch(value) && double.TryParse(value, NumberStyles.Float, CultureInfo.InvariantCulture, out var d) => (double.IsFinite(d) ? JsonValue.Create(d) : null, double.IsFinite(d)),
        _ => (JsonValue.Create(value), true),
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
