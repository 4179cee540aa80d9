using System.Globalization;
using System.Text.RegularExpressions;
using YamlDotNet.Core;
using YamlDotNet.RepresentationModel;

namespace Salsa.Gateway.Workflows;

/// <summary>A workflow as written: its name, description and steps, each node kept for the positions of errors.</summary>
internal sealed record WorkflowText(string Name, string Description, IReadOnlyList<StepText> Steps);

/// <summary>A step as written: what it names and where; nothing checked against the operations yet.</summary>
internal sealed record StepText(string Id, YamlNode IdNode, YamlMappingNode Node)
{
    public string? Service { get; init; }

    public string? Operation { get; init; }

    public YamlMappingNode? InputsNode { get; init; }

    public YamlMappingNode? ParametersNode { get; init; }

    public IReadOnlyList<string> After { get; init; } = [];

    public IReadOnlyList<(string Name, YamlNode Node)> Artifacts { get; init; } = [];

    public TimeSpan? Timeout { get; init; }

    public RetryPolicy Retry { get; init; } = RetryPolicy.None;
}

/// <summary>
/// Reads a workflow's YAML into <see cref="WorkflowText"/>: one document, a mapping of the known keys
/// (<see cref="WorkflowVocabulary"/>), each of the shape it has — names and ids, steps as mappings,
/// inputs and parameters as mappings, <c>after</c> and <c>artifacts</c> as names, durations, retry —
/// every problem an error at its line and column. What the names mean (services, operations,
/// inputs, parameters, wiring) is <see cref="WorkflowChecker"/>'s.
/// </summary>
internal static partial class WorkflowReader
{
    /// <summary>
    /// The text's workflow, or null (with the errors) when it is not one YAML mapping; what it would
    /// cost to build is checked first (<see cref="YamlBudget"/>, beyond <paramref name="limits"/> a
    /// <see cref="Salsa.Hosting.Errors.LimitExceededException"/>).
    /// </summary>
    public static WorkflowText? Read(string yaml, string origin, WorkflowLimits limits, List<WorkflowError> errors)
    {
        if (Load(yaml, origin, limits, errors) is not { } root)
        {
            return null;
        }

        var name = "";
        var description = "";
        YamlMappingNode? stepsNode = null;
        foreach (var (keyNode, value) in root.Children)
        {
            switch (Key(keyNode, errors))
            {
                case "name":
                    name = Scalar(value, "name", errors) ?? "";
                    if (name.Length > 0 && !WorkflowVocabulary.IdPattern().IsMatch(name))
                    {
                        errors.Add(At(value, $"name '{name}' must be lower-case letters, digits and dashes, starting with a letter"));
                    }

                    break;
                case "description":
                    description = Scalar(value, "description", errors) ?? "";
                    break;
                case "steps":
                    stepsNode = value as YamlMappingNode;
                    if (stepsNode is null)
                    {
                        errors.Add(At(value, "steps must be a mapping of step id → step"));
                    }

                    break;
                case { } key:
                    errors.Add(At(keyNode, $"unknown key '{key}' (a workflow has {string.Join(", ", WorkflowVocabulary.TopKeys)})"));
                    break;
            }
        }

        if (stepsNode is not null && stepsNode.Children.Count > limits.MaxSteps)
        {
            throw WorkflowParser.Beyond($"{origin} has {stepsNode.Children.Count:N0} steps", limits.MaxSteps, "steps", nameof(WorkflowLimits.MaxSteps));
        }

        if (name.Length == 0 && !root.Children.ContainsKey(new YamlScalarNode("name")))
        {
            errors.Add(At(root, "the workflow has no name"));
        }

        if (stepsNode is { Children.Count: 0 })
        {
            errors.Add(At(stepsNode, "the workflow has no steps"));
        }
        else if (stepsNode is null && !root.Children.ContainsKey(new YamlScalarNode("steps")))
        {
            errors.Add(At(root, "the workflow has no steps"));
        }

        var steps = new List<StepText>();
        foreach (var (idNode, stepNode) in Entries(stepsNode))
        {
            if (Key(idNode, errors) is not { } id)
            {
                continue;
            }

            if (!WorkflowVocabulary.IdPattern().IsMatch(id))
            {
                errors.Add(At(idNode, $"step id '{id}' must be lower-case letters, digits and dashes, starting with a letter"));
            }

            if (ReadStep(id, idNode, stepNode, errors) is { } step)
            {
                steps.Add(step);
            }
        }

        return new WorkflowText(name, description, steps);
    }

    private static YamlMappingNode? Load(string yaml, string origin, WorkflowLimits limits, List<WorkflowError> errors)
    {
        var stream = new YamlStream();
        try
        {
            YamlBudget.Check(yaml, origin, limits, errors);
            if (errors.Count > 0)
            {
                return null;
            }

            stream.Load(new StringReader(yaml));
        }
        catch (YamlException exception)
        {
            var message = exception.InnerException is { } inner ? $"{exception.Message} {inner.Message}" : exception.Message;
            errors.Add(new WorkflowError((int)Math.Max(1, exception.Start.Line), (int)Math.Max(1, exception.Start.Column), $"YAML: {Trim(message)}"));
            return null;
        }

        if (stream.Documents.Count != 1)
        {
            errors.Add(new WorkflowError(1, 1, stream.Documents.Count == 0 ? "the file is empty" : "a workflow file holds one YAML document"));
            return null;
        }

        if (stream.Documents[0].RootNode is not YamlMappingNode root)
        {
            errors.Add(At(stream.Documents[0].RootNode, "a workflow is a mapping with name, description and steps"));
            return null;
        }

        return root;
    }

    /// <summary>YamlDotNet's message of a text that is not YAML, without the position prefix it repeats (we report the position ourselves).</summary>
    public static string Trim(string message) => PositionPrefix().Replace(message, "").Trim();

    private static StepText? ReadStep(string id, YamlNode idNode, YamlNode node, List<WorkflowError> errors)
    {
        if (node is not YamlMappingNode map)
        {
            errors.Add(At(node, $"step '{id}' must be a mapping with service, operation, inputs, parameters…"));
            return null;
        }

        var step = new StepText(id, idNode, map);
        var after = new List<string>();
        var artifacts = new List<(string Name, YamlNode Node)>();
        foreach (var (keyNode, value) in map.Children)
        {
            step = Key(keyNode, errors) switch
            {
                "service" => step with { Service = Scalar(value, $"{id}.service", errors) },
                "operation" => step with { Operation = Scalar(value, $"{id}.operation", errors) },
                "inputs" => step with { InputsNode = Mapping(value, $"{id}.inputs", "input name → step.output", errors) },
                "parameters" => step with { ParametersNode = Mapping(value, $"{id}.parameters", "parameter name → value", errors) },
                "after" => Add(step, after, Strings(value, $"{id}.after", errors).Select(s => s.Value)),
                "artifacts" => Add(step, artifacts, Strings(value, $"{id}.artifacts", errors)),
                "timeout" => step with { Timeout = Duration(value, $"{id}.timeout", WorkflowVocabulary.MaxTimeout, errors) },
                "retry" => step with { Retry = Retry(value, id, errors) },
                { } key => Unknown(step, At(keyNode, $"step '{id}' has an unknown key '{key}' (a step has {string.Join(", ", WorkflowVocabulary.StepKeys)})"), errors),
                null => step,
            };
        }

        if (step.Service is null)
        {
            errors.Add(At(idNode, $"step '{id}' names no service"));
        }

        if (step.Operation is null)
        {
            errors.Add(At(idNode, $"step '{id}' names no operation"));
        }

        return step with { After = after, Artifacts = artifacts };

        static StepText Add<T>(StepText step, List<T> list, IEnumerable<T> items)
        {
            list.AddRange(items);
            return step;
        }

        static StepText Unknown(StepText step, WorkflowError error, List<WorkflowError> errors)
        {
            errors.Add(error);
            return step;
        }
    }

    private static TimeSpan? Duration(YamlNode node, string what, TimeSpan longest, List<WorkflowError> errors)
    {
        var text = Scalar(node, what, errors);
        if (text is null)
        {
            return null;
        }

        var duration = WorkflowVocabulary.ParseDuration(text);
        if (duration is { } positive && positive > TimeSpan.Zero && positive <= longest)
        {
            return duration;
        }

        errors.Add(At(node, duration > longest
            ? $"{what} '{WorkflowVocabulary.Shorten(text)}' is longer than {WorkflowVocabulary.Describe(longest)}, the most it may be"
            : $"{what} '{WorkflowVocabulary.Shorten(text)}' is not a positive duration (e.g. 500ms, 30s, 15m, 2h)"));
        return null;
    }

    private static RetryPolicy Retry(YamlNode node, string id, List<WorkflowError> errors)
    {
        if (Mapping(node, $"{id}.retry", "attempts and backoff", errors) is not { } map)
        {
            return RetryPolicy.None;
        }

        var attempts = 1;
        var backoff = TimeSpan.FromSeconds(1);
        foreach (var (keyNode, value) in map.Children)
        {
            switch (Key(keyNode, errors))
            {
                case "attempts":
                    if (Scalar(value, $"{id}.retry.attempts", errors) is { } text)
                    {
                        if (int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out attempts) && attempts is >= 1 and <= 10)
                        {
                            break;
                        }

                        errors.Add(At(value, $"{id}.retry.attempts '{text}' must be a whole number from 1 to 10 (1 = no retry)"));
                        attempts = 1;
                    }

                    break;
                case "backoff":
                    backoff = Duration(value, $"{id}.retry.backoff", WorkflowVocabulary.MaxBackoff, errors) ?? backoff;
                    break;
                case { } key:
                    errors.Add(At(keyNode, $"{id}.retry has an unknown key '{key}' ({string.Join(", ", WorkflowVocabulary.RetryKeys)})"));
                    break;
            }
        }

        return new RetryPolicy(attempts, backoff);
    }

    /// <summary>A mapping key as a name; anything else is an error.</summary>
    public static string? Key(YamlNode node, List<WorkflowError> errors)
    {
        if (node is YamlScalarNode { Value: { } key })
        {
            return key;
        }

        errors.Add(At(node, "keys must be plain names"));
        return null;
    }

    /// <summary>A value that must be one non-empty scalar.</summary>
    public static string? Scalar(YamlNode node, string what, List<WorkflowError> errors)
    {
        if (node is YamlScalarNode { Value: { Length: > 0 } value })
        {
            return value;
        }

        errors.Add(At(node, $"{what} must be a single value"));
        return null;
    }

    private static YamlMappingNode? Mapping(YamlNode node, string what, string shape, List<WorkflowError> errors)
    {
        if (node is YamlMappingNode map)
        {
            return map;
        }

        errors.Add(At(node, $"{what} must be a mapping ({shape})"));
        return null;
    }

    private static IEnumerable<(string Value, YamlNode Node)> Strings(YamlNode node, string what, List<WorkflowError> errors)
    {
        if (node is YamlScalarNode { Value: { Length: > 0 } single })
        {
            return [(single, node)];
        }

        if (node is YamlSequenceNode list && list.Children.All(c => c is YamlScalarNode { Value.Length: > 0 }))
        {
            return list.Children.Select(c => (((YamlScalarNode)c).Value!, c));
        }

        errors.Add(At(node, $"{what} must be a list of names"));
        return [];
    }

    public static IEnumerable<KeyValuePair<YamlNode, YamlNode>> Entries(YamlMappingNode? map) => map?.Children ?? Enumerable.Empty<KeyValuePair<YamlNode, YamlNode>>();

    public static YamlNode? Find(YamlMappingNode map, string key) =>
        map.Children.TryGetValue(new YamlScalarNode(key), out var value) ? value : null;

    public static SourcePosition Position(YamlNode node) => new((int)node.Start.Line, (int)node.Start.Column);

    public static WorkflowError At(YamlNode node, string message) => new((int)node.Start.Line, (int)node.Start.Column, message);

    [GeneratedRegex(@"^\(Line: \d+, Col: \d+, Idx: \d+\) - \(Line: \d+, Col: \d+, Idx: \d+\):\s*")]
    private static partial Regex PositionPrefix();
}
