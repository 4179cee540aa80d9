using System.Text.Json.Nodes;
using Salsa.Gateway.Workflows;

namespace Salsa.Gateway.Api;

/// <summary>A workflow as listed: its steps and their dependencies (or the errors that keep it from loading).</summary>
public sealed record WorkflowView(string Name, string Description, string File, IReadOnlyList<WorkflowStepView> Steps, IReadOnlyList<WorkflowError> Errors, string? Yaml)
{
    public static WorkflowView Of(WorkflowEntry entry, bool withYaml)
    {
        ArgumentNullException.ThrowIfNull(entry);
        var definition = entry.Definition;
        return new(entry.Name, definition?.Description ?? "", Path.GetFileName(entry.File),
            definition is null ? [] : StepsOf(definition), entry.Errors, withYaml ? System.IO.File.ReadAllText(entry.File) : null);
    }

    public static IReadOnlyList<WorkflowStepView> StepsOf(WorkflowDefinition definition) =>
        [.. definition.Steps.Select(s => new WorkflowStepView(s.Id, s.Service, s.Operation, s.DependsOn, s.Artifacts, s.Parameters))];
}

/// <summary>A step of a workflow: what it calls, what it waits for, what it keeps, and the parameters it runs with unless a run overrides them.</summary>
public sealed record WorkflowStepView(string Id, string Service, string Operation, IReadOnlyList<string> DependsOn, IReadOnlyList<string> Artifacts,
    IReadOnlyDictionary<string, JsonNode?> Parameters);
