using Salsa.Contracts.Operations;
using System.Globalization;
using System.Text.Json;
using System.Text.Json.Nodes;
using System.Text.RegularExpressions;
using Salsa.Gateway.Operations;
using LimitExceededException = Salsa.Hosting.Errors.LimitExceededException;
using YamlDotNet.Core;
using YamlDotNet.RepresentationModel;

namespace Salsa.Gateway.Workflows;

/// <summary>
/// Reads a workflow's YAML (the format of <c>workflows/workflow.schema.json</c>) and checks it against
/// the operations the services offer: unknown keys, services, operations, inputs, parameters and
/// artifacts; wrong types and bounds; references to missing steps or outputs; inputs wired to an
/// output of another type; cycles. Every problem found is reported with its line and column.
/// </summary>
public sealed partial class WorkflowParser(OperationCatalog catalog, WorkflowLimits? limits = null)
{
    private readonly WorkflowLimits _limits = limits ?? new WorkflowLimits();

    // The keys, names and references the parser accepts; WorkflowSchema builds the JSON Schema from the same ones.
    internal static readonly string[] TopKeys = ["name", "description", "steps"];
    internal static readonly string[] StepKeys = ["service", "operation", "inputs", "parameters", "after", "timeout", "retry", "artifacts"];
    internal static readonly string[] RetryKeys = ["attempts", "backoff"];
    internal const string IdPatternText = "^[a-z][a-z0-9-]*$";
    internal const string ReferencePatternText = @"^([a-z][a-z0-9-]*)\.([a-zA-Z][a-zA-Z0-9]*)$";

    /// <summary>
    /// Parses and validates, or throws <see cref="WorkflowValidationException"/> listing every error
    /// (<see cref="LimitExceededException"/> for a workflow beyond <see cref="WorkflowLimits"/>).
    /// Time and memory grow linearly with the workflow's size.
    /// </summary>
    /// <param name="yaml">The workflow's text.</param>
    /// <param name="origin">What errors call it: the file name, or <c>inline</c>.</param>
    /// <param name="file">The file's full path, or null when inline.</param>
    /// <param name="overrides">Parameter values that replace the written ones, keyed <c>step.parameter</c>.</param>
    public WorkflowDefinition Parse(string yaml, string origin, string? file = null, IReadOnlyDictionary<string, JsonNode?>? overrides = null)
    {
        ArgumentNullException.ThrowIfNull(yaml);
        var bytes = System.Text.Encoding.UTF8.GetByteCount(yaml);
        if (bytes > _limits.MaxBytes)
        {
            throw Beyond($"{origin} is {bytes:N0} bytes of YAML", _limits.MaxBytes, "bytes", nameof(WorkflowLimits.MaxBytes));
        }

        var errors = new List<WorkflowError>();
        var root = Load(yaml, origin, errors);
        if (root is null)
        {
            throw new WorkflowValidationException(origin, errors);
        }

        var name = "";
        var description = "";
        YamlMappingNode? stepsNode = null;
        foreach (var (keyNode, value) in root.Children)
        {
            var key = Key(keyNode, errors);
            switch (key)
            {
                case "name":
                    name = Scalar(value, "name", errors) ?? "";
                    if (name.Length > 0 && !IdPattern().IsMatch(name))
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
                case not null:
                    errors.Add(At(keyNode, $"unknown key '{key}' (a workflow has {string.Join(", ", TopKeys)})"));
                    break;
            }
        }

        if (name.Length == 0 && !root.Children.ContainsKey(new YamlScalarNode("name")))
        {
            errors.Add(At(root, "the workflow has no name"));
        }

        var steps = new List<StepDefinition>();
        var specs = new Dictionary<string, OperationSpec>(StringComparer.Ordinal);
        if (stepsNode is { Children.Count: 0 })
        {
            errors.Add(At(stepsNode, "the workflow has no steps"));
        }
        else if (stepsNode is null && !root.Children.ContainsKey(new YamlScalarNode("steps")))
        {
            errors.Add(At(root, "the workflow has no steps"));
        }

        if (stepsNode is not null && stepsNode.Children.Count > _limits.MaxSteps)
        {
            throw Beyond($"{origin} has {stepsNode.Children.Count:N0} steps", _limits.MaxSteps, "steps", nameof(WorkflowLimits.MaxSteps));
        }

        var applied = new HashSet<string>(StringComparer.Ordinal);
        var wiring = new Wiring();
        foreach (var (idNode, stepNode) in Entries(stepsNode))
        {
            var id = Key(idNode, errors);
            if (id is null)
            {
                continue;
            }

            if (!IdPattern().IsMatch(id))
            {
                errors.Add(At(idNode, $"step id '{id}' must be lower-case letters, digits and dashes, starting with a letter"));
            }

            if (ParseStep(id, idNode, stepNode, overrides, applied, wiring, errors) is { } parsed)
            {
                steps.Add(parsed.Step);
                if (parsed.Spec is not null)
                {
                    specs[id] = parsed.Spec;
                }
            }
        }

        foreach (var key in overrides?.Keys ?? [])
        {
            if (!applied.Contains(key))
            {
                errors.Add(new WorkflowError(1, 1, $"parameter override '{key}' names no parameter of a step (write step.parameter)"));
            }
        }

        CheckWiring(steps, specs, wiring, errors);
        CheckFanOut(origin, steps);
        var keptBy = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var step in steps)
        {
            foreach (var artifact in step.Artifacts)
            {
                if (!keptBy.TryAdd(artifact, step.Id))
                {
                    errors.Add(new WorkflowError(step.Position.Line, step.Position.Column,
                        $"step '{step.Id}' keeps '{artifact}', as step '{keptBy[artifact]}' does: a run keeps one file of each name"));
                }
            }
        }

        // Cycles are looked for even when other errors were found: a cycle through inputs of the
        // wrong type is first of all a cycle.
        var order = Order(steps, errors);
        if (errors.Count > 0)
        {
            throw new WorkflowValidationException(origin, [.. errors.Distinct().OrderBy(e => e.Line).ThenBy(e => e.Column)]);
        }

        return new WorkflowDefinition { Name = name, Description = description, Steps = steps, Order = order, Yaml = yaml, File = file };
    }

    private YamlMappingNode? Load(string yaml, string origin, List<WorkflowError> errors)
    {
        var stream = new YamlStream();
        try
        {
            YamlBudget.Check(yaml, origin, _limits, errors);
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

    // YamlDotNet's messages repeat the position in a (Line: 3, Col: 5, Idx: 40) prefix; we report it ourselves.
    private static string Trim(string message) => PositionPrefix().Replace(message, "").Trim();

    private (StepDefinition Step, OperationSpec? Spec)? ParseStep(string id, YamlNode idNode, YamlNode node, IReadOnlyDictionary<string, JsonNode?>? overrides,
        HashSet<string> applied, Wiring wiring, List<WorkflowError> errors)
    {
        if (node is not YamlMappingNode map)
        {
            errors.Add(At(node, $"step '{id}' must be a mapping with service, operation, inputs, parameters…"));
            return null;
        }

        string? service = null, operation = null;
        YamlMappingNode? inputsNode = null, parametersNode = null;
        var after = new List<string>();
        var artifacts = new List<(string Name, YamlNode Node)>();
        TimeSpan? timeout = null;
        var retry = RetryPolicy.None;
        foreach (var (keyNode, value) in map.Children)
        {
            switch (Key(keyNode, errors))
            {
                case "service":
                    service = Scalar(value, $"{id}.service", errors);
                    break;
                case "operation":
                    operation = Scalar(value, $"{id}.operation", errors);
                    break;
                case "inputs":
                    inputsNode = Mapping(value, $"{id}.inputs", "input name → step.output", errors);
                    break;
                case "parameters":
                    parametersNode = Mapping(value, $"{id}.parameters", "parameter name → value", errors);
                    break;
                case "after":
                    after.AddRange(Strings(value, $"{id}.after", errors).Select(s => s.Value));
                    break;
                case "artifacts":
                    artifacts.AddRange(Strings(value, $"{id}.artifacts", errors));
                    break;
                case "timeout":
                    timeout = Duration(value, $"{id}.timeout", errors);
                    break;
                case "retry":
                    retry = Retry(value, id, errors);
                    break;
                case { } key:
                    errors.Add(At(keyNode, $"step '{id}' has an unknown key '{key}' (a step has {string.Join(", ", StepKeys)})"));
                    break;
            }
        }

        if (service is null)
        {
            errors.Add(At(idNode, $"step '{id}' names no service"));
        }

        if (operation is null)
        {
            errors.Add(At(idNode, $"step '{id}' names no operation"));
        }

        OperationSpec? spec = null;
        if (service is not null && operation is not null)
        {
            spec = catalog.Find(service, operation);
            if (spec is null)
            {
                var position = Find(map, "operation") ?? map;
                errors.Add(catalog.Operations(service).Count == 0
                    ? At(Find(map, "service") ?? map, $"step '{id}': unknown service '{service}' (known: {string.Join(", ", catalog.Services)})")
                    : At(position, $"step '{id}': the {service} service has no operation '{operation}' (it has {string.Join(", ", catalog.Operations(service).Select(o => o.Name))})"));
            }
        }

        var inputs = new Dictionary<string, OutputReference>(StringComparer.Ordinal);
        var inputPositions = new Dictionary<string, YamlNode>(StringComparer.Ordinal);
        foreach (var (keyNode, value) in Entries(inputsNode))
        {
            if (Key(keyNode, errors) is not { } input)
            {
                continue;
            }

            if (spec is not null && spec.Inputs.All(i => i.Name != input))
            {
                errors.Add(At(keyNode, $"step '{id}': {spec.Key} has no input '{input}' ({Names(spec.Inputs.Select(i => i.Name))})"));
                continue;
            }

            var text = Scalar(value, $"{id}.inputs.{input}", errors);
            if (text is null)
            {
                continue;
            }

            var match = ReferencePattern().Match(text);
            if (!match.Success)
            {
                errors.Add(At(value, $"step '{id}': input '{input}' must name an earlier step's output as step.output, not '{text}'"));
                continue;
            }

            inputs[input] = new OutputReference(match.Groups[1].Value, match.Groups[2].Value);
            inputPositions[input] = value;
        }

        foreach (var missing in spec?.Inputs.Where(i => i.Required && !inputs.ContainsKey(i.Name) && inputsNode?.Children.ContainsKey(new YamlScalarNode(i.Name)) != true) ?? [])
        {
            errors.Add(At(inputsNode ?? (YamlNode)idNode, $"step '{id}': {spec!.Key} needs input '{missing.Name}' ({missing.Type}: {missing.Description})"));
        }

        var parameters = ParseParameters(id, idNode, spec, parametersNode, overrides, applied, errors);
        foreach (var (artifact, position) in artifacts)
        {
            if (spec is not null && !spec.Artifacts.Contains(artifact))
            {
                errors.Add(At(position, spec.Artifacts.Count == 0
                    ? $"step '{id}': {spec.Key} produces no files to keep"
                    : $"step '{id}': {spec.Key} produces no file '{artifact}' ({Names(spec.Artifacts)})"));
            }
        }

        var step = new StepDefinition
        {
            Id = id,
            Service = service ?? "",
            Operation = operation ?? "",
            Inputs = inputs,
            Parameters = parameters,
            DependsOn = [.. inputs.Values.Select(r => r.Step).Concat(after).Distinct(StringComparer.Ordinal)],
            Timeout = timeout,
            Retry = retry,
            Artifacts = [.. artifacts.Select(a => a.Name)],
            Position = Position(idNode),
        };
        wiring[step] = (inputPositions, Find(map, "after") ?? map);
        return (step, spec);
    }

    private static Dictionary<string, JsonNode?> ParseParameters(string id, YamlNode idNode, OperationSpec? spec, YamlMappingNode? node,
        IReadOnlyDictionary<string, JsonNode?>? overrides, HashSet<string> applied, List<WorkflowError> errors)
    {
        var values = new Dictionary<string, JsonNode?>(StringComparer.Ordinal);
        var positions = new Dictionary<string, YamlNode>(StringComparer.Ordinal);
        foreach (var (keyNode, value) in Entries(node))
        {
            if (Key(keyNode, errors) is not { } name)
            {
                continue;
            }

            if (spec is not null && spec.Parameters.All(p => p.Name != name))
            {
                errors.Add(At(keyNode, $"step '{id}': {spec.Key} has no parameter '{name}' ({Names(spec.Parameters.Select(p => p.Name))})"));
                continue;
            }

            values[name] = ToJson(value);
            positions[name] = value;
        }

        foreach (var (key, value) in overrides ?? new Dictionary<string, JsonNode?>())
        {
            var dot = key.IndexOf('.', StringComparison.Ordinal);
            if (dot > 0 && key[..dot] == id && spec?.Parameters.Any(p => p.Name == key[(dot + 1)..]) == true)
            {
                values[key[(dot + 1)..]] = value?.DeepClone();
                positions[key[(dot + 1)..]] = idNode;
                applied.Add(key);
            }
        }

        if (spec is null)
        {
            return values;
        }

        foreach (var parameter in spec.Parameters)
        {
            if (values.TryGetValue(parameter.Name, out var value))
            {
                if (Check(parameter, value) is { } problem)
                {
                    errors.Add(At(positions[parameter.Name], $"step '{id}': parameter '{parameter.Name}' {problem}"));
                }
            }
            else if (parameter.Required)
            {
                errors.Add(At(node ?? idNode, $"step '{id}': {spec.Key} needs parameter '{parameter.Name}' ({parameter.Description})"));
            }
            else if (parameter.Default is not null)
            {
                values[parameter.Name] = parameter.Default.DeepClone();
            }
        }

        return values;
    }

    /// <summary>Null when <paramref name="value"/> suits the parameter; else what is wrong, as a phrase.</summary>
    internal static string? Check(ParameterSpec parameter, JsonNode? value)
    {
        static bool IsNumber(JsonNode? n) => n is JsonValue v && v.GetValueKind() == JsonValueKind.Number;
        static double Number(JsonNode n) => n.Deserialize<double>();
        string? Bounds(double x) =>
            parameter.Minimum is { } min && x < min ? string.Create(CultureInfo.InvariantCulture, $"is {x}; it must be at least {min}")
            : parameter.Maximum is { } max && x > max ? string.Create(CultureInfo.InvariantCulture, $"is {x}; it must be at most {max}")
            : parameter.ExclusiveMinimum is { } above && !(x > above) ? string.Create(CultureInfo.InvariantCulture, $"is {x}; it must be more than {above}")
            : parameter.ExclusiveMaximum is { } below && !(x < below) ? string.Create(CultureInfo.InvariantCulture, $"is {x}; it must be less than {below}")
            : null;

        switch (parameter.Kind)
        {
            case ParameterKind.String:
                if (value is not JsonValue s || !s.TryGetValue<string>(out var text))
                {
                    return "must be a string";
                }

                return parameter.Allowed is { } allowed && !allowed.Contains(text) ? $"is '{text}'; it must be one of {string.Join(", ", allowed)}" : null;
            case ParameterKind.Boolean:
                return value is JsonValue b && b.TryGetValue<bool>(out _) ? null : "must be true or false";
            case ParameterKind.Integer:
                return IsNumber(value) && Number(value!) is var whole && whole == Math.Floor(whole) && Math.Abs(whole) < 1e15 ? Bounds(whole) : "must be a whole number";
            case ParameterKind.Number:
                return IsNumber(value) ? Bounds(Number(value!)) : "must be a number";
            case ParameterKind.StringList:
                return value is JsonArray strings && strings.All(x => x is JsonValue v && v.TryGetValue<string>(out _)) ? null : "must be a list of strings";
            case ParameterKind.NumberList:
                return value is JsonArray numbers && numbers.All(IsNumber) ? null : "must be a list of numbers";
            default:
                return "has an unknown kind";
        }
    }

    private void CheckFanOut(string origin, List<StepDefinition> steps)
    {
        var dependents = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (var dependency in steps.SelectMany(s => s.DependsOn.Distinct(StringComparer.Ordinal)))
        {
            if ((dependents[dependency] = dependents.GetValueOrDefault(dependency) + 1) > _limits.MaxFanOut)
            {
                throw Beyond($"In {origin}, more than {_limits.MaxFanOut:N0} steps depend on step '{dependency}'", _limits.MaxFanOut, "dependent steps", nameof(WorkflowLimits.MaxFanOut));
            }
        }
    }

    private static LimitExceededException Beyond(string what, int limit, string unit, string key) =>
        new($"{what}: over this gateway's limit of {limit:N0} {unit} ({WorkflowLimits.Section}:{key}).");

    private static void CheckWiring(List<StepDefinition> steps, Dictionary<string, OperationSpec> specs, Wiring wiring, List<WorkflowError> errors)
    {
        var byId = steps.GroupBy(s => s.Id).ToDictionary(g => g.Key, g => g.First(), StringComparer.Ordinal);
        foreach (var step in steps)
        {
            var (inputPositions, afterPosition) = wiring[step];
            foreach (var (input, reference) in step.Inputs)
            {
                var position = inputPositions[input];
                if (reference.Step == step.Id)
                {
                    errors.Add(At(position, $"step '{step.Id}': input '{input}' refers to the step itself"));
                }
                else if (!byId.ContainsKey(reference.Step))
                {
                    errors.Add(At(position, $"step '{step.Id}': input '{input}' refers to an unknown step '{reference.Step}' (steps: {Names(byId.Keys)})"));
                }
                else if (specs.TryGetValue(reference.Step, out var source))
                {
                    var output = source.Outputs.FirstOrDefault(o => o.Name == reference.Output);
                    var expected = specs.TryGetValue(step.Id, out var spec) ? spec.Inputs.FirstOrDefault(i => i.Name == input) : null;
                    if (output is null)
                    {
                        errors.Add(At(position, $"step '{step.Id}': input '{input}' refers to '{reference}', but {source.Key} has no output '{reference.Output}' ({Names(source.Outputs.Select(o => o.Name))})"));
                    }
                    else if (expected is not null && !expected.Type.Split('|').Contains(output.Type))
                    {
                        errors.Add(At(position, $"step '{step.Id}': input '{input}' takes {Article(expected.Type)}, but '{reference}' is {Article(output.Type)}"));
                    }
                }
            }

            foreach (var other in step.DependsOn.Where(d => !step.Inputs.Values.Any(r => r.Step == d)))
            {
                if (!byId.ContainsKey(other) || other == step.Id)
                {
                    errors.Add(At(afterPosition, $"step '{step.Id}': after names {(other == step.Id ? "the step itself" : $"an unknown step '{other}'")}"));
                }
            }
        }
    }

    /// <summary>
    /// A topological order (Kahn's algorithm, the ready step written first going first: O(n log n)
    /// in steps and dependencies); a cycle is an error naming its steps. Dependencies on unknown
    /// steps or on the step itself are left out here (reported as wiring errors).
    /// </summary>
    private static List<StepDefinition> Order(List<StepDefinition> steps, List<WorkflowError> errors)
    {
        var index = new Dictionary<string, int>(steps.Count, StringComparer.Ordinal);
        for (var i = 0; i < steps.Count; i++)
        {
            index.TryAdd(steps[i].Id, i);
        }

        var waiting = new int[steps.Count];
        var dependents = new List<int>?[steps.Count];
        for (var i = 0; i < steps.Count; i++)
        {
            foreach (var dependency in steps[i].DependsOn.Distinct(StringComparer.Ordinal))
            {
                if (index.TryGetValue(dependency, out var j) && j != i)
                {
                    waiting[i]++;
                    (dependents[j] ??= []).Add(i);
                }
            }
        }

        var ready = new PriorityQueue<int, int>();
        for (var i = 0; i < steps.Count; i++)
        {
            if (waiting[i] == 0)
            {
                ready.Enqueue(i, i);
            }
        }

        var order = new List<StepDefinition>(steps.Count);
        while (ready.TryDequeue(out var next, out _))
        {
            order.Add(steps[next]);
            foreach (var dependent in dependents[next] ?? [])
            {
                if (--waiting[dependent] == 0)
                {
                    ready.Enqueue(dependent, dependent);
                }
            }
        }

        if (order.Count < steps.Count)
        {
            var cycle = FindCycle([.. steps.Where((_, i) => waiting[i] > 0)]);
            var first = steps.First(s => s.Id == cycle[0]);
            errors.Add(new WorkflowError(first.Position.Line, first.Position.Column, $"steps form a cycle: {string.Join(" → ", cycle)} → {cycle[0]}"));
            return [];
        }

        return order;
    }

    private static List<string> FindCycle(List<StepDefinition> blocked)
    {
        // Every blocked step waits for another blocked step: walk dependencies until one repeats.
        var byId = blocked.GroupBy(s => s.Id, StringComparer.Ordinal).ToDictionary(g => g.Key, g => g.First(), StringComparer.Ordinal);
        var path = new List<string>();
        var onPath = new HashSet<string>(StringComparer.Ordinal);
        var current = blocked[0].Id;
        while (onPath.Add(current))
        {
            path.Add(current);
            var at = current;
            current = byId[at].DependsOn.First(d => d != at && byId.ContainsKey(d));
        }

        var cycle = path[path.IndexOf(current)..];
        cycle.Reverse(); // dependency order: a feeds b feeds … feeds a
        return cycle;
    }

    internal static TimeSpan? ParseDuration(string text)
    {
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

    private static TimeSpan? Duration(YamlNode node, string what, List<WorkflowError> errors)
    {
        var text = Scalar(node, what, errors);
        if (text is null)
        {
            return null;
        }

        if (ParseDuration(text) is { } duration && duration > TimeSpan.Zero)
        {
            return duration;
        }

        errors.Add(At(node, $"{what} '{text}' is not a positive duration (e.g. 500ms, 30s, 15m, 2h)"));
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
                    backoff = Duration(value, $"{id}.retry.backoff", errors) ?? backoff;
                    break;
                case { } key:
                    errors.Add(At(keyNode, $"{id}.retry has an unknown key '{key}' ({string.Join(", ", RetryKeys)})"));
                    break;
            }
        }

        return new RetryPolicy(attempts, backoff);
    }

    private static string? Key(YamlNode node, List<WorkflowError> errors)
    {
        if (node is YamlScalarNode { Value: { } key })
        {
            return key;
        }

        errors.Add(At(node, "keys must be plain names"));
        return null;
    }

    private static string? Scalar(YamlNode node, string what, List<WorkflowError> errors)
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

    private static IEnumerable<KeyValuePair<YamlNode, YamlNode>> Entries(YamlMappingNode? map) => map?.Children ?? Enumerable.Empty<KeyValuePair<YamlNode, YamlNode>>();

    private static YamlNode? Find(YamlMappingNode map, string key) =>
        map.Children.TryGetValue(new YamlScalarNode(key), out var value) ? value : null;

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

    private static SourcePosition Position(YamlNode node) => new((int)node.Start.Line, (int)node.Start.Column);

    private static WorkflowError At(YamlNode node, string message) => new((int)node.Start.Line, (int)node.Start.Column, message);

    // At most a dozen names: an error in a workflow of thousands of steps stays one line.
    private static string Names(IEnumerable<string> names)
    {
        var list = names.Take(13).ToList();
        return list.Count switch
        {
            0 => "none",
            13 => $"{string.Join(", ", list.Take(12))}, … and {names.Count() - 12:N0} more",
            _ => string.Join(", ", list),
        };
    }

    private static string Article(string type) => string.Join(" or ", type.Split('|').Select(t => (t[0] is 'a' or 'e' or 'i' or 'o' or 'u' ? "an " : "a ") + t));

    /// <summary>Where each step's inputs and <c>after</c> were written, for the wiring errors found once all steps are read.</summary>
    private sealed class Wiring : Dictionary<StepDefinition, (Dictionary<string, YamlNode> Inputs, YamlNode After)>
    {
        public Wiring()
            : base(ReferenceEqualityComparer.Instance)
        {
        }
    }

    [GeneratedRegex(IdPatternText)]
    private static partial Regex IdPattern();

    [GeneratedRegex(ReferencePatternText)]
    private static partial Regex ReferencePattern();

    // [0-9], not \d: \d takes any script's digits, which double.Parse then refuses.
    [GeneratedRegex(@"^([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m|h|)$")]
    private static partial Regex DurationPattern();

    [GeneratedRegex(@"^[-+]?[0-9]+$")]
    private static partial Regex IntegerPattern();

    [GeneratedRegex(@"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")]
    private static partial Regex FloatPattern();

    [GeneratedRegex(@"^\(Line: \d+, Col: \d+, Idx: \d+\) - \(Line: \d+, Col: \d+, Idx: \d+\):\s*")]
    private static partial Regex PositionPrefix();
}
