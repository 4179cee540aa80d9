using System.Text.Json.Nodes;

namespace Salsa.Contracts.Operations;

/// <summary>
/// What flows between steps. A step's input accepts an output of the same type; the checks run
/// when the workflow loads, so a wrong wiring is an error with its line, not a failed run.
/// </summary>
#pragma warning disable CA1720 // The names are what workflow authors read.
public static class ValueTypes
{
    /// <summary>A census dataset (latitude/longitude, population) as imported.</summary>
    public const string CensusDataset = "census-dataset";

    /// <summary>Dense, weighted points (e.g. a census query projected to planar km).</summary>
    public const string Points = "points";

    /// <summary>A compound set (ids and SMILES).</summary>
    public const string Compounds = "compounds";

    /// <summary>A binary fingerprint dataset of one fingerprint type.</summary>
    public const string Fingerprints = "fingerprints";

    /// <summary>A finished clustering job with per-point assignments: <c>{ service, jobId }</c>.</summary>
    public const string Clustering = "clustering";

    /// <summary>A finished Butina job: <c>{ service, jobId }</c>.</summary>
    public const string Butina = "butina";

    /// <summary>A finished MDS job: <c>{ service, jobId }</c>.</summary>
    public const string Embedding = "embedding";

    /// <summary>Point indices into a dataset.</summary>
    public const string Indices = "indices";

    /// <summary>Numbers, e.g. weights of the items an index list names.</summary>
    public const string Numbers = "numbers";

    public const string Integer = "integer";

    public const string Number = "number";

    /// <summary>Rows of flat objects (a cluster table, search hits).</summary>
    public const string Table = "table";

    /// <summary>A finished rendering job whose files are artifacts.</summary>
    public const string Rendering = "rendering";
}
#pragma warning restore CA1720

/// <summary>An input of an operation: which output type it takes.</summary>
public sealed record InputSpec(string Name, string Type, bool Required, string Description);

/// <summary>What a parameter's value must be (the JSON Schema type names).</summary>
#pragma warning disable CA1720 // The names are the JSON Schema types workflow authors read.
public enum ParameterKind
{
    String,
    Integer,
    Number,
    Boolean,
    StringList,
    NumberList,
}
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
}

/// <summary>An output of an operation.</summary>
public sealed record OutputSpec(string Name, string Type, string Description);

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

    public required Func<IStepContext, Task<StepOutcome>> Execute { get; init; }

    public string Key => $"{Service}.{Name}";
}

/// <summary>What a step produced: its outputs, and the service job whose files it may keep.</summary>
public sealed record StepOutcome(IReadOnlyDictionary<string, JsonNode?> Outputs, JobAddress? Job = null)
{
    public static StepOutcome Of(params (string Name, JsonNode? Value)[] outputs) => Of(null, outputs);

    public static StepOutcome Of(JobAddress? job, params (string Name, JsonNode? Value)[] outputs)
    {
        ArgumentNullException.ThrowIfNull(outputs);
        return new(outputs.ToDictionary(o => o.Name, o => o.Value, StringComparer.Ordinal), job);
    }
}

/// <summary>A job on a service, as passed between steps: <c>{ "service": "annealing", "jobId": "…" }</c>.</summary>
public sealed record JobAddress(string Service, string JobId)
{
    public JsonNode ToJson() => new JsonObject { ["service"] = Service, ["jobId"] = JobId };

    public static JobAddress FromJson(JsonNode? node) =>
        node is JsonObject o && o["service"]?.GetValue<string>() is { } service && o["jobId"]?.GetValue<string>() is { } id
            ? new JobAddress(service, id)
            : throw new InvalidOperationException($"Not a job reference: {node?.ToJsonString() ?? "null"}.");
}
