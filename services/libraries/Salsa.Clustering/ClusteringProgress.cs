using System.Threading.Channels;

namespace Salsa.Clustering;

/// <summary>
/// One progress event: after each temperature (annealing), iteration (k-means, MDS) or phase.
/// <see cref="Objective"/> is the free energy (annealing), inertia (k-means) or stress (MDS).
/// </summary>
public sealed record ClusteringProgress(
    string Algorithm,
    string Phase,
    int Iteration,
    double? Temperature,
    int Clusters,
    double Objective,
    TimeSpan Elapsed);

/// <summary>Channels for progress events: read them with <c>ReadAllAsync</c> as an async stream.</summary>
public static class ClusteringProgressChannel
{
    /// <summary>
    /// A bounded channel that drops the oldest event when the reader falls behind: progress never
    /// slows the computation, and the reader always sees the latest state.
    /// </summary>
    public static Channel<ClusteringProgress> Create(int capacity = 1024) =>
        Channel.CreateBounded<ClusteringProgress>(new BoundedChannelOptions(capacity)
        {
            FullMode = BoundedChannelFullMode.DropOldest,
            SingleWriter = true,
            SingleReader = false,
        });
}
