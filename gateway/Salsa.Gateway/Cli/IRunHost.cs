using System.Text.Json.Nodes;
using Salsa.Gateway.Runs;
using Salsa.Gateway.Workflows;

namespace Salsa.Gateway.Cli;

/// <summary>
/// Where the <c>run</c> command's run happens: in this process (<see cref="EmbeddedRunHost"/>, the
/// gateway with its services embedded) or on a gateway server (<see cref="RemoteRunHost"/>, e.g. the
/// gateway container of the compose deployment). The command shows both the same way.
/// </summary>
public interface IRunHost : IAsyncDisposable
{
    /// <summary>Where a browser watches the run (<c>{address}#/runs/{id}</c>).</summary>
    Uri Address { get; }

    /// <summary>Reads a workflow — a file, or a name in the workflows folder — with parameter overrides.</summary>
    WorkflowDefinition Load(string workflow, IReadOnlyDictionary<string, JsonNode?> parameters);

    /// <summary>A workflow's text, as a run recorded it, with its parameter overrides.</summary>
    WorkflowDefinition Parse(string yaml, IReadOnlyDictionary<string, JsonNode?> parameters);

    Task<RunView> SubmitAsync(WorkflowDefinition workflow, IReadOnlyDictionary<string, JsonNode?> parameters, CancellationToken cancellationToken);

    /// <summary>Runs again a succeeded run of this host's, exactly as it ran; the new run compares its outputs with the recorded ones.</summary>
    Task<RunView> ReproduceAsync(Guid id, CancellationToken cancellationToken);

    /// <summary>Reproduces a run recorded anywhere, from its <c>result.json</c>.</summary>
    Task<RunView> ReproduceAsync(RunView recorded, CancellationToken cancellationToken);

    /// <summary>Runs an ended run of this host's again from one of its steps, the steps before it reused, with changes for that step and those downstream.</summary>
    Task<RunView> RetryFromAsync(Guid id, string stepId, IReadOnlyDictionary<string, JsonNode?> changes, CancellationToken cancellationToken);

    /// <summary>The run's events until it ends.</summary>
    IAsyncEnumerable<RunEvent> WatchAsync(Guid id, CancellationToken cancellationToken);

    /// <summary>The run once it has ended.</summary>
    Task<RunView> WaitAsync(Guid id, CancellationToken cancellationToken);

    Task<byte[]> GetArtifactAsync(Guid id, string name, CancellationToken cancellationToken);

    Task CancelAsync(Guid id);
}
