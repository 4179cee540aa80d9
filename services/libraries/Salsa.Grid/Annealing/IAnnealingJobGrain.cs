using Salsa.Clustering.Annealing;
using Salsa.Grid.Jobs;

namespace Salsa.Grid.Annealing;

/// <summary>The coordinator of one deterministic-annealing job (keyed by the job's id).</summary>
public interface IAnnealingJobGrain : IGridJobGrain
{
    /// <summary>
    /// Starts the job; starting it again with the same spec returns it as it is (no second run).
    /// <paramref name="traceParent"/> (W3C) puts the job's spans in the caller's trace. The result is an <see cref="AnnealingResult"/>.
    /// </summary>
    Task<GridJobView> StartAsync(AnnealingJobSpec spec, string? traceParent = null);
}
