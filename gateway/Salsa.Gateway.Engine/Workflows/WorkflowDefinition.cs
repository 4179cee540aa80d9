using System.Text.Json.Nodes;

namespace Salsa.Gateway.Workflows;

/// <summary>A parsed and validated workflow: steps forming a DAG over the services' operations.</summary>
public sealed record WorkflowDefinition
{
    public required string Name { get; init; }

    public string Description { get; init; } = "";

    /// <summary>In the order written; <see cref="Order"/> is a topological order.</summary>
    public required IReadOnlyList<StepDefinition> Steps { get; init; }

    /// <summary>The YAML it was parsed from (kept with every run).</summary>
    public required string Yaml { get; init; }

    /// <summary>Where it was loaded from, or null when inline.</summary>
    public string? File { get; init; }

    public StepDefinition Step(string id) => Steps.First(s => s.Id == id);

    /// <summary>Steps in an order where every step comes after the steps it depends on.</summary>
    public IReadOnlyList<StepDefinition> Order { get; init; } = [];
}

/// <summary>One step: an operation of a service, its inputs (earlier steps' outputs) and parameters.</summary>
public sealed record StepDefinition
{
    public required string Id { get; init; }

    public required string Service { get; init; }

    public required string Operation { get; init; }

    /// <summary>Input name → the output it takes (<c>step.output</c>).</summary>
    public IReadOnlyDictionary<string, OutputReference> Inputs { get; init; } = new Dictionary<string, OutputReference>();

    /// <summary>Parameter name → value (defaults applied for the ones not written).</summary>
    public IReadOnlyDictionary<string, JsonNode?> Parameters { get; init; } = new Dictionary<string, JsonNode?>();

    /// <summary>Steps this one waits for: those its inputs refer to and those named in <c>after</c>.</summary>
    public IReadOnlyList<string> DependsOn { get; init; } = [];

    /// <summary>How long one attempt may take; null = no limit.</summary>
    public TimeSpan? Timeout { get; init; }

    public RetryPolicy Retry { get; init; } = RetryPolicy.None;

    /// <summary>Files of the step's service job the run keeps (downloaded into the run's artifacts).</summary>
    public IReadOnlyList<string> Artifacts { get; init; } = [];

    /// <summary>The most clusters the step's job can report (its operation's <c>ProgressLimit</c> parameter); null when unbounded.</summary>
    public long? ProgressLimit { get; init; }

    public SourcePosition Position { get; init; }
}

/// <summary>A reference to an output of an earlier step, written <c>step.output</c>.</summary>
public sealed record OutputReference(string Step, string Output)
{
    public override string ToString() => $"{Step}.{Output}";
}

/// <summary>How often a failed step is tried again, and how long to wait between attempts (doubling).</summary>
public sealed record RetryPolicy(int Attempts, TimeSpan Backoff)
{
    public static RetryPolicy None { get; } = new(1, TimeSpan.Zero);

    /// <summary>The longest wait a timer takes (<c>Task.Delay</c> refuses more than 2³² − 2 ms).</summary>
    private static readonly TimeSpan LongestWait = TimeSpan.FromMilliseconds(uint.MaxValue - 1);

    /// <summary>The wait before attempt <paramref name="attempt"/> (2, 3, …): backoff, 2×backoff, 4×backoff…, at most a timer's longest.</summary>
    public TimeSpan DelayBefore(int attempt) =>
        attempt <= 1 ? TimeSpan.Zero : TimeSpan.FromTicks((long)Math.Min(Backoff.Ticks * Math.Pow(2, Math.Min(attempt - 2, 10)), LongestWait.Ticks));
}
