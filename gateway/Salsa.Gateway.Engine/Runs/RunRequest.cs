using System.Text.Json.Nodes;

namespace Salsa.Gateway.Runs;

/// <summary>What to run: a workflow by name or inline YAML, with parameter overrides (<c>step.parameter</c>).</summary>
public sealed record RunRequest
{
    public string? Workflow { get; init; }

    public string? Yaml { get; init; }

    public Dictionary<string, JsonNode?>? Parameters { get; init; }
}
