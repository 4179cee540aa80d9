using System.Threading.Channels;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Fingerprints;

/// <summary>
/// Taylor–Butina clustering of fingerprints at a Tanimoto distance cut-off (Butina 1999, after
/// Taylor 1995): exact neighbour lists, then compounds taken in order of decreasing neighbour count
/// (ties by decreasing index, as RDKit orders them), each one not yet assigned becoming a centroid that claims its unassigned
/// neighbours. The neighbour lists are computed in parallel on Salsa.Ccr ranks; the result is the same
/// for any number of ranks (a neighbour list is a set, stored sorted; the pass is sequential).
/// </summary>
public static class TaylorButina
{
    public static ButinaResult Run(BinaryVectors points, ButinaOptions options, ChannelWriter<ClusteringProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(points);
        ArgumentNullException.ThrowIfNull(options);
        options.Validate();
        return new ButinaRun(points, options, progress).Execute(cancellationToken);
    }

    public static Task<ButinaResult> RunAsync(BinaryVectors points, ButinaOptions options, ChannelWriter<ClusteringProgress>? progress = null, CancellationToken cancellationToken = default) =>
        ClusteringExecution.RunAsync(() => Run(points, options, progress, cancellationToken), cancellationToken);
}
