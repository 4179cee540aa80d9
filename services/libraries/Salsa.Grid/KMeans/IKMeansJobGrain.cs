using Salsa.Clustering.KMeans;
using Salsa.Grid.Jobs;

namespace Salsa.Grid.KMeans;

/// <summary>The coordinator of one k-means job (keyed by the job's id).</summary>
public interface IKMeansJobGrain : IGridJobGrain
{
    /// <summary>
    /// Starts the job; starting it again with the same spec returns it as it is (no second run).
    /// <paramref name="traceParent"/> (W3C) puts the job's spans in the caller's trace. The result is a <see cref="KMeansResult"/>.
    /// </summary>
    Task<GridJobView> StartAsync(KMeansJobSpec spec, string? traceParent = null);
}
