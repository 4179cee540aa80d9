using System.Text.Json.Nodes;
using Salsa.Contracts.Operations;

namespace Salsa.Gateway.Api;

/// <summary>
/// An operation a workflow step can name, as <c>GET /api/operations</c> lists it: its inputs,
/// parameters (kind, bounds, whether a path), outputs, files, and what its job's progress reports.
/// </summary>
public sealed record OperationView(
    string Service,
    string Operation,
    string Summary,
    IReadOnlyList<InputSpec> Inputs,
    IReadOnlyList<OperationParameterView> Parameters,
    IReadOnlyList<OutputSpec> Outputs,
    IReadOnlyList<string> Artifacts,
    IReadOnlyList<ProgressField> Progress)
{
    public static OperationView Of(OperationSpec spec)
    {
        ArgumentNullException.ThrowIfNull(spec);
        return new(spec.Service, spec.Name, spec.Summary, spec.Inputs, [.. spec.Parameters.Select(OperationParameterView.Of)], spec.Outputs, spec.Artifacts, spec.Progress);
    }
}

/// <summary>A parameter of an operation (<see cref="ParameterSpec"/>), its kind written as the workflow format's.</summary>
public sealed record OperationParameterView(
    string Name,
    string Kind,
    string Description,
    bool Required,
    JsonNode? Default,
    double? Minimum,
    double? Maximum,
    double? ExclusiveMinimum,
    double? ExclusiveMaximum,
    IReadOnlyList<string>? Allowed,
    bool IsPath,
    bool IsMolecule)
{
    public static OperationParameterView Of(ParameterSpec spec)
    {
        ArgumentNullException.ThrowIfNull(spec);
        return new(spec.Name, spec.Kind.ToString(), spec.Description, spec.Required, spec.Default, spec.Minimum, spec.Maximum, spec.ExclusiveMinimum, spec.ExclusiveMaximum, spec.Allowed, spec.IsPath, spec.IsMolecule);
    }
}
