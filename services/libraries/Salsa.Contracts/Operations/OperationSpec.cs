using System.Text.Json.Nodes;

namespace Salsa.Contracts.Operations;

#pragma warning restore CA1720

/// <summary>An input of an operation: which output type it takes.</summary>
public sealed record InputSpec(string Name, string Type, bool Required, string Description);

#pragma warning restore CA1720

/// <summary>
/// A parameter of an operation, with its default and bounds — as its service declares them (its
/// algorithm's options and <c>ServiceLimits</c>), so the gateway checks a workflow against exactly
/// what the service will accept.
/// </summary>
public sealed record ParameterSpec(string Name, ParameterKind Kind, string Description)
{
    public bool Required { get; init; }

    public JsonNode? Default { get; init; }

    public double? Minimum { get; init; }

    public double? Maximum { get; init; }

    /// <summary>The value must be above this (an open bound, e.g. a cooling factor in (0, 1)).</summary>
    public double? ExclusiveMinimum { get; init; }

    /// <summary>The value must be below this.</summary>
    public double? ExclusiveMaximum { get; init; }

    /// <summary>
    /// Applied by the operation itself to what the service returned (e.g. how many medoids a step
    /// passes on), never sent to the service; so its bounds are the operation's own.
    /// </summary>
    public bool OperationOnly { get; init; }

    /// <summary>The values a string may take, when they are a closed set.</summary>
    public IReadOnlyList<string>? Allowed { get; init; }

    /// <summary>
    /// A file's path on the service's machine (or an https URL): one written relative in a workflow
    /// file is read from that file's folder, wherever the gateway was started.
    /// </summary>
    public bool IsPath { get; init; }

    /// <summary>
    /// A molecule as a SMILES: the gateway has the chem service's RDKit read it when a run is submitted,
    /// so a SMILES it cannot read refuses the run, at this parameter, before any step runs.
    /// </summary>
    public bool IsMolecule { get; init; }
}

/// <summary>An output of an operation.</summary>
public sealed record OutputSpec(string Name, string Type, string Description)
{
    /// <summary>
    /// Says how the step ran (where, on which silos, how long), not what it computed: a run that
    /// reproduces another does not compare it.
    /// </summary>
    public bool DescribesExecution { get; init; }
}

/// <summary>
/// One operation a workflow step can name: <c>service</c> + <c>operation</c>, its typed inputs,
/// parameters and outputs, the files its job can leave, and the code that performs it over gRPC.
/// Each service declares its own (<c>ISalsaService.Operations</c>); the gateway's catalog, the
/// workflow JSON Schema and docs/workflows.md are made from them.
/// </summary>
public sealed record OperationSpec
{
    public required string Service { get; init; }

    public required string Name { get; init; }

    public required string Summary { get; init; }

    public IReadOnlyList<InputSpec> Inputs { get; init; } = [];

    public IReadOnlyList<ParameterSpec> Parameters { get; init; } = [];

    public IReadOnlyList<OutputSpec> Outputs { get; init; } = [];

    /// <summary>Files the operation's service job produces that a step may keep.</summary>
    public IReadOnlyList<string> Artifacts { get; init; } = [];

    /// <summary>
    /// The parameter whose value is the most clusters the job's progress can report (Kmax, K) — the
    /// end of a progress bar; null when the progress has no such bound.
    /// </summary>
    public string? ProgressLimit { get; init; }

    /// <summary>
    /// What the job's progress means, field by field (<c>iteration</c>, <c>temperature</c>,
    /// <c>clusters</c>, <c>objective</c>): the only ones a console shows for a step of this
    /// operation, under these labels. Empty: the job reports only its phase and elapsed time.
    /// </summary>
    public IReadOnlyList<ProgressField> Progress { get; init; } = [];

    public required Func<IStepContext, Task<StepOutcome>> Execute { get; init; }

    public string Key => $"{Service}.{Name}";
}
