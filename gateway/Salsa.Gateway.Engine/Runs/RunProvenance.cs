namespace Salsa.Gateway.Runs;

/// <summary>
/// How a run was made, as <c>result.json</c>, the API and the console show it: enough to make it
/// again anywhere (<c>run --reproduce</c>, <c>POST /api/runs/{id}/reproduce</c>).
/// </summary>
/// <param name="Platform">The release that ran it, with its commit (e.g. <c>1.1.0+c707bb7…</c>).</param>
/// <param name="Workflow">The workflow's text it ran (its parameters' values are each step's <see cref="StepView.Parameters"/>).</param>
/// <param name="Rdkit">The RDKit release that made the run's molecules' fingerprints (from its datasets); null when it read no molecules.</param>
public sealed record RunProvenance(string Platform, string Workflow, string? Rdkit = null)
{
    /// <summary>With the RDKit releases of a step's datasets (several, of a run that read datasets of several, comma-separated).</summary>
    public RunProvenance WithRdkit(IReadOnlyList<string> releases)
    {
        ArgumentNullException.ThrowIfNull(releases);
        var known = Rdkit?.Split(", ") ?? [];
        return releases.Except(known).Any() ? this with { Rdkit = string.Join(", ", known.Union(releases)) } : this;
    }
}
