namespace Salsa.Gateway.Runs;

/// <summary>
/// A run made again from a recorded one (<see cref="RunView.Provenance"/>: the same workflow text,
/// the same parameters) and what came of it, output by output: each digest the recorded run has
/// (<see cref="StepView.Digests"/>, the files it kept) beside the one this run made.
/// </summary>
public sealed record RunReproduction
{
    /// <summary>The recorded run.</summary>
    public required Guid Of { get; init; }

    /// <summary>The release that made the recorded run.</summary>
    public string? RecordedPlatform { get; init; }

    /// <summary>The RDKit release of the recorded run's fingerprints.</summary>
    public string? RecordedRdkit { get; init; }

    /// <summary>
    /// Parameters set to the recorded run's values because this release's workflow gives them
    /// others (a default that changed): <c>step.parameter</c>.
    /// </summary>
    public IReadOnlyList<string> Pinned { get; init; } = [];

    /// <summary>Null until the run has ended; then whether every output and file is the recorded one, byte for byte.</summary>
    public bool? Identical { get; init; }

    /// <summary>The first step, in the workflow's order, with an output that differs (or that made none); null when none does.</summary>
    public string? FirstDifference { get; init; }

    /// <summary>Every output and kept file of the recorded run, in the workflow's order.</summary>
    public IReadOnlyList<OutputComparison> Outputs { get; init; } = [];

    /// <summary>What a run reproducing <paramref name="recorded"/> is to compare: its outputs' and files' digests, in <paramref name="order"/>.</summary>
    public static RunReproduction From(RunView recorded, IReadOnlyList<string> order, IReadOnlyList<string> pinned)
    {
        ArgumentNullException.ThrowIfNull(recorded);
        ArgumentNullException.ThrowIfNull(order);
        var outputs = new List<OutputComparison>();
        foreach (var id in order)
        {
            var step = recorded.Steps.FirstOrDefault(s => s.Id == id);
            outputs.AddRange((step?.Digests ?? new Dictionary<string, string>()).Select(d => new OutputComparison(id, d.Key, File: false, d.Value, null)));
            outputs.AddRange(recorded.Artifacts.Where(a => a.Step == id).Select(a => new OutputComparison(id, a.Name, File: true, a.Sha256, null)));
        }

        return new RunReproduction
        {
            Of = recorded.Id,
            RecordedPlatform = recorded.Provenance?.Platform,
            RecordedRdkit = recorded.Provenance?.Rdkit,
            Pinned = pinned,
            Outputs = outputs,
        };
    }

    /// <summary>
    /// Compared with <paramref name="run"/> as it is (<paramref name="ended"/>: as it ended): each
    /// output's digest in this run beside the recorded one, and the first step that differs.
    /// </summary>
    public RunReproduction Compared(RunView run, IEnumerable<Workflows.StepDefinition> order, bool ended)
    {
        ArgumentNullException.ThrowIfNull(run);
        ArgumentNullException.ThrowIfNull(order);
        var outputs = Outputs.Select(o => o with
        {
            Reproduced = o.File
                ? run.Artifacts.FirstOrDefault(a => a.Name == o.Name && a.Step == o.Step)?.Sha256
                : run.Steps.FirstOrDefault(s => s.Id == o.Step)?.Digests?.GetValueOrDefault(o.Name),
        }).ToList();
        // A step differs when an output differs, or (once the run has ended) when it made one the
        // recorded run did not, or did not succeed: the first in the workflow's order is named.
        var first = order.Select(s => s.Id).FirstOrDefault(id =>
        {
            var mine = outputs.Where(o => o.Step == id).ToList();
            if (mine.Any(o => o.Reproduced is not null && !o.Identical))
            {
                return true;
            }

            if (!ended)
            {
                return false;
            }

            var step = run.Steps.FirstOrDefault(s => s.Id == id);
            return step?.State != StepState.Succeeded || mine.Any(o => !o.Identical)
                || (step.Digests ?? new Dictionary<string, string>()).Keys.Any(k => !mine.Any(o => !o.File && o.Name == k));
        });
        return this with
        {
            Outputs = outputs,
            FirstDifference = first,
            Identical = ended ? first is null && run.State == RunState.Succeeded : null,
        };
    }
}

/// <summary>
/// One output of a step (or a file the run kept, <paramref name="File"/>): its SHA-256 in the
/// recorded run and in this one (null while not made, or when the recorded run kept no digest).
/// </summary>
public sealed record OutputComparison(string Step, string Name, bool File, string? Recorded, string? Reproduced)
{
    public bool Identical => Recorded is not null && Recorded == Reproduced;
}
