using System.Text.Json.Nodes;

namespace Salsa.Contracts.Operations;

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
