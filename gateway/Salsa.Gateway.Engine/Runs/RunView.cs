using System.Text.Json.Nodes;
using Salsa.Gateway.Hops;

namespace Salsa.Gateway.Runs;

/// <summary>A run, as the API returns it and the store keeps it.</summary>
public sealed record RunView
{
    public required Guid Id { get; init; }

    public required string Workflow { get; init; }

    public RunState State { get; init; }

    public DateTimeOffset Created { get; init; }

    public DateTimeOffset? Started { get; init; }

    public DateTimeOffset? Finished { get; init; }

    public string? Error { get; init; }

    /// <summary>The W3C trace id of the run's trace (gateway and every service).</summary>
    public string? TraceId { get; init; }

    /// <summary>The parameter overrides the run was started with (<c>step.parameter</c> → value); the workflow's defaults apply to the rest.</summary>
    public IReadOnlyDictionary<string, JsonNode?> Parameters { get; init; } = new Dictionary<string, JsonNode?>();

    /// <summary>The workflow's text the run ran, as the first 12 hex digits of its SHA-256: runs of different versions of a workflow differ here.</summary>
    public string? WorkflowVersion { get; init; }

    /// <summary>The run this one re-ran (with the same workflow text, and its parameters with any changes).</summary>
    public Guid? RerunOf { get; init; }

    /// <summary>
    /// For a retry (<see cref="RerunOf"/> names the run it retried): the step it ran again from. That
    /// step and every step downstream of it ran anew; the others' outputs are the earlier run's
    /// (<see cref="StepView.Reused"/>, the same dataset ids).
    /// </summary>
    public string? RetriedFrom { get; init; }

    /// <summary>How the run was made: the release, the workflow's text, the RDKit release of its fingerprints (null for runs recorded before it was kept).</summary>
    public RunProvenance? Provenance { get; init; }

    /// <summary>For a run that reproduces a recorded one: which, and whether each output came out identical.</summary>
    public RunReproduction? Reproduction { get; init; }

    /// <summary>How often the run was resumed after a gateway restart.</summary>
    public int Resumes { get; init; }

    public IReadOnlyList<StepView> Steps { get; init; } = [];

    public IReadOnlyList<Hop> Hops { get; init; } = [];

    /// <summary>The calls made and not yet ended, while the run is live (a stored run has none).</summary>
    public IReadOnlyList<HopInFlight> HopsInFlight { get; init; } = [];

    public IReadOnlyList<RunArtifactView> Artifacts { get; init; } = [];
}
