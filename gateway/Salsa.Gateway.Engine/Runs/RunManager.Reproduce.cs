using System.Text.Json.Nodes;
using Salsa.Hosting.Errors;

namespace Salsa.Gateway.Runs;

/// <summary>Runs made again from recorded ones — by id, or from a <c>result.json</c> recorded anywhere — and compared output by output.</summary>
public sealed partial class RunManager
{
    /// <summary>
    /// Runs again what a run of the caller's ran — its workflow text, every step's parameters as it
    /// ran them — and compares each output and kept file with the recorded one as the new run goes
    /// (<see cref="RunView.Reproduction"/>).
    /// </summary>
    public async Task<RunView> ReproduceAsync(Guid id, CancellationToken cancellationToken = default)
    {
        var (view, request) = await RecordedAsync(id, cancellationToken).ConfigureAwait(false);
        return await ReproduceAsync(view, request.Yaml, request.File, request.Parameters, cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Reproduces a run recorded anywhere, from its view (a <c>result.json</c>): it carries its workflow's text and its steps' parameters.</summary>
    public Task<RunView> ReproduceAsync(RunView recorded, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(recorded);
        var yaml = recorded.Provenance?.Workflow is { Length: > 0 } text
            ? text
            : throw new ArgumentException("The recorded run carries no workflow text (provenance.workflow): it was recorded before runs kept it; reproduce it by its id on the gateway that ran it.");
        return ReproduceAsync(recorded, yaml, file: null, recorded.Parameters, cancellationToken);
    }

    private async Task<RunView> ReproduceAsync(RunView recorded, string yaml, string? file, IReadOnlyDictionary<string, JsonNode?> overrides, CancellationToken cancellationToken)
    {
        if (recorded.State != RunState.Succeeded)
        {
            throw new ConflictException($"Run {recorded.Id} is {Lower(recorded.State)}: only a run that succeeded is reproduced (re-run it to try again).");
        }

        var origin = file is null ? "inline" : Path.GetFileName(file);
        var parameters = new Dictionary<string, JsonNode?>(overrides, StringComparer.Ordinal);
        var workflow = library.Parse(yaml, origin, file, parameters);

        // Every step runs with the values it ran with: where this release's workflow gives a
        // parameter another value (a default that changed), the recorded one is set. A parameter
        // this release no longer has is an error of the parse, with its step.
        var pinned = new List<string>();
        foreach (var step in workflow.Steps)
        {
            foreach (var (name, value) in recorded.Steps.FirstOrDefault(s => s.Id == step.Id)?.Parameters ?? new Dictionary<string, JsonNode?>())
            {
                if (value is not null && !JsonNode.DeepEquals(step.Parameters.GetValueOrDefault(name), value))
                {
                    parameters[$"{step.Id}.{name}"] = value.DeepClone();
                    pinned.Add($"{step.Id}.{name}");
                }
            }
        }

        if (pinned.Count > 0)
        {
            workflow = library.Parse(yaml, origin, file, parameters);
        }

        var reproduction = RunReproduction.From(recorded, [.. workflow.Order.Select(s => s.Id)], pinned);
        return await SubmitAsync(workflow, parameters, rerunOf: null, cancellationToken, reproduction).ConfigureAwait(false);
    }

    private static string Lower(RunState state) => state.ToString().ToLowerInvariant();
}
