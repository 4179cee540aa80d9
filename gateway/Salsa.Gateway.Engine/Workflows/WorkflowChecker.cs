using System.Globalization;
using System.Text.Json;
using System.Text.Json.Nodes;
using Salsa.Contracts.Operations;
using Salsa.Gateway.Catalog;
using YamlDotNet.RepresentationModel;
using static Salsa.Gateway.Workflows.WorkflowReader;

namespace Salsa.Gateway.Workflows;

/// <summary>
/// Checks a workflow as written (<see cref="WorkflowText"/>) against the operations the services
/// offer: services and operations, inputs (known, given, each <c>step.output</c> of a step that has
/// that output, of a type the input takes), parameters (known, of their kind, within their bounds,
/// the required ones given; overrides likewise; defaults filled in), artifacts, <c>after</c>, steps
/// depending on one step, and cycles — every problem an error at its line and column — and orders
/// the steps. Time grows linearly with the workflow (the order: n log n).
/// </summary>
internal sealed class WorkflowChecker(OperationCatalog catalog, WorkflowLimits limits)
{
    /// <summary>
    /// The checked steps and their order (empty when a cycle was found); problems are added to
    /// <paramref name="errors"/>. A path the workflow writes relative (<see cref="ParameterSpec.IsPath"/>)
    /// is read from <paramref name="folder"/>, the workflow file's (null for an inline workflow).
    /// </summary>
    public (List<StepDefinition> Steps, List<StepDefinition> Order) Check(WorkflowText workflow, string origin, IReadOnlyDictionary<string, JsonNode?>? overrides, List<WorkflowError> errors, string? folder = null)
    {
        ArgumentNullException.ThrowIfNull(workflow);
        var steps = new List<StepDefinition>();
        var specs = new Dictionary<string, OperationSpec>(StringComparer.Ordinal);
        var applied = new HashSet<string>(StringComparer.Ordinal);
        var wiring = new Wiring();
        foreach (var text in workflow.Steps)
        {
            var (step, spec) = CheckStep(text, overrides, applied, wiring, errors, folder);
            steps.Add(step);
            if (spec is not null)
            {
                specs[step.Id] = spec;
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
        return (steps, Order(steps, errors));
    }

    private (StepDefinition Step, OperationSpec? Spec) CheckStep(StepText text, IReadOnlyDictionary<string, JsonNode?>? overrides, HashSet<string> applied, Wiring wiring, List<WorkflowError> errors, string? folder)
    {
        var (id, map) = (text.Id, text.Node);
        OperationSpec? spec = null;
        if (text.Service is { } service && text.Operation is { } operation)
        {
            spec = catalog.Find(service, operation);
            if (spec is null)
            {
                errors.Add(catalog.Operations(service).Count == 0
                    ? At(Find(map, "service") ?? map, $"step '{id}': unknown service '{service}' (known: {string.Join(", ", catalog.Services)})")
                    : At(Find(map, "operation") ?? map, $"step '{id}': the {service} service has no operation '{operation}' (it has {string.Join(", ", catalog.Operations(service).Select(o => o.Name))})"));
            }
        }

        var (inputs, inputPositions) = CheckInputs(text, spec, errors);
        var parameters = CheckParameters(text, spec, overrides, applied, errors, folder);
        foreach (var (artifact, position) in text.Artifacts)
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
            Service = text.Service ?? "",
            Operation = text.Operation ?? "",
            Inputs = inputs,
            Parameters = parameters,
            DependsOn = [.. inputs.Values.Select(r => r.Step).Concat(text.After).Distinct(StringComparer.Ordinal)],
            Timeout = text.Timeout,
            Retry = text.Retry,
            Artifacts = [.. text.Artifacts.Select(a => a.Name)],
            ProgressLimit = ProgressLimit(spec, parameters),
            Position = Position(text.IdNode),
        };
        wiring[step] = (inputPositions, Find(map, "after") ?? map);
        return (step, spec);
    }

    // Whatever number type the value holds (parsed from YAML or JSON, or set in code).
    private static long? ProgressLimit(OperationSpec? spec, IReadOnlyDictionary<string, JsonNode?> parameters) =>
        spec?.ProgressLimit is { } name && parameters.GetValueOrDefault(name) is { } value
            && long.TryParse(value.ToJsonString(), NumberStyles.Integer, CultureInfo.InvariantCulture, out var limit) && limit > 0
            ? limit
            : null;

    private static (Dictionary<string, OutputReference> Inputs, Dictionary<string, YamlNode> Positions) CheckInputs(StepText text, OperationSpec? spec, List<WorkflowError> errors)
    {
        var id = text.Id;
        var inputs = new Dictionary<string, OutputReference>(StringComparer.Ordinal);
        var positions = new Dictionary<string, YamlNode>(StringComparer.Ordinal);
        foreach (var (keyNode, value) in Entries(text.InputsNode))
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

            if (WorkflowReader.Scalar(value, $"{id}.inputs.{input}", errors) is not { } reference)
            {
                continue;
            }

            var match = WorkflowVocabulary.ReferencePattern().Match(reference);
            if (!match.Success)
            {
                errors.Add(At(value, $"step '{id}': input '{input}' must name an earlier step's output as step.output, not '{reference}'"));
                continue;
            }

            inputs[input] = new OutputReference(match.Groups[1].Value, match.Groups[2].Value);
            positions[input] = value;
        }

        foreach (var missing in spec?.Inputs.Where(i => i.Required && !inputs.ContainsKey(i.Name) && text.InputsNode?.Children.ContainsKey(new YamlScalarNode(i.Name)) != true) ?? [])
        {
            errors.Add(At(text.InputsNode ?? text.IdNode, $"step '{id}': {spec!.Key} needs input '{missing.Name}' ({missing.Type}: {missing.Description})"));
        }

        return (inputs, positions);
    }

    /// <summary>
    /// A path the workflow file writes relative, as read from the file's folder (not from wherever
    /// the gateway was started); an absolute path, a URL, an empty text or an override are as given.
    /// </summary>
    private static JsonNode? FromFolder(JsonNode? value, ParameterSpec? parameter, string? folder) =>
        folder is not null && parameter?.IsPath == true && value is JsonValue text && text.TryGetValue<string>(out var path)
            && path.Length > 0 && !Path.IsPathRooted(path) && !Uri.TryCreate(path, UriKind.Absolute, out _)
            ? JsonValue.Create(Path.GetFullPath(Path.Combine(folder, path)))
            : value;

    private Dictionary<string, JsonNode?> CheckParameters(StepText text, OperationSpec? spec, IReadOnlyDictionary<string, JsonNode?>? overrides, HashSet<string> applied, List<WorkflowError> errors, string? folder)
    {
        var id = text.Id;
        var values = new Dictionary<string, JsonNode?>(StringComparer.Ordinal);
        var positions = new Dictionary<string, YamlNode>(StringComparer.Ordinal);
        foreach (var (keyNode, value) in Entries(text.ParametersNode))
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

            values[name] = FromFolder(WorkflowVocabulary.ToJson(value, limits, errors), spec?.Parameters.First(p => p.Name == name), folder);
            positions[name] = value;
        }

        foreach (var (key, value) in overrides ?? new Dictionary<string, JsonNode?>())
        {
            var dot = key.IndexOf('.', StringComparison.Ordinal);
            if (dot > 0 && key[..dot] == id && spec?.Parameters.Any(p => p.Name == key[(dot + 1)..]) == true)
            {
                values[key[(dot + 1)..]] = value?.DeepClone();
                positions[key[(dot + 1)..]] = text.IdNode;
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
                errors.Add(At(text.ParametersNode ?? text.IdNode, $"step '{id}': {spec.Key} needs parameter '{parameter.Name}' ({parameter.Description})"));
            }
            else if (parameter.Default is not null)
            {
                values[parameter.Name] = parameter.Default.DeepClone();
            }
        }

        return values;
    }

    /// <summary>Null when <paramref name="value"/> suits the parameter; else what is wrong, as a phrase.</summary>
    public static string? Check(ParameterSpec parameter, JsonNode? value)
    {
        ArgumentNullException.ThrowIfNull(parameter);
        static bool IsNumber(JsonNode? n) => n is JsonValue v && v.GetValueKind() == JsonValueKind.Number;
        // Whatever the value holds (a long or a double from YAML, an int default, a JSON element), its
        // number as JSON writes it; one beyond a double's range (1e400) is out of range, in our words.
        static double Number(JsonNode n) => double.Parse(n.ToJsonString(), NumberStyles.Float, CultureInfo.InvariantCulture);
        static bool Finite(JsonNode? n) => IsNumber(n) && double.IsFinite(Number(n!));
        const string OutOfRange = "is beyond the range of a number (at most ±1.8e308)";
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
                var whole = IsNumber(value) && Finite(value) ? Number(value!) : double.NaN;
                if (whole != Math.Floor(whole))
                {
                    return "must be a whole number"; // NaN too
                }

                // Integer parameters are 32-bit wherever they are read.
                return whole is < int.MinValue or > int.MaxValue
                    ? string.Create(CultureInfo.InvariantCulture, $"is {whole}; it must be a whole number from {int.MinValue} to {int.MaxValue}")
                    : Bounds(whole);
            case ParameterKind.Number:
                return !IsNumber(value) ? "must be a number" : !Finite(value) ? OutOfRange : Bounds(Number(value!));
            case ParameterKind.StringList:
                return value is JsonArray strings && strings.All(x => x is JsonValue v && v.TryGetValue<string>(out _)) ? null : "must be a list of strings";
            case ParameterKind.NumberList:
                return value is not JsonArray numbers || !numbers.All(IsNumber) ? "must be a list of numbers" : numbers.All(Finite) ? null : $"holds a number that {OutOfRange}";
            default:
                return "has an unknown kind";
        }
    }

    private void CheckFanOut(string origin, List<StepDefinition> steps)
    {
        var dependents = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (var dependency in steps.SelectMany(s => s.DependsOn.Distinct(StringComparer.Ordinal)))
        {
            if ((dependents[dependency] = dependents.GetValueOrDefault(dependency) + 1) > limits.MaxFanOut)
            {
                throw WorkflowParser.Beyond($"In {origin}, more than {limits.MaxFanOut:N0} steps depend on step '{dependency}'", limits.MaxFanOut, "dependent steps", nameof(WorkflowLimits.MaxFanOut));
            }
        }
    }

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
}
