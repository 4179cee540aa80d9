using System.Diagnostics;
using System.Threading.Channels;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Salsa.Clustering;
using Salsa.Clustering.KMeans;
using Salsa.Grid.Jobs;
using Salsa.Grid.Partitions;

namespace Salsa.Grid.KMeans;

/// <summary>
/// k-means over the partition grains: each k-means++ step asks every partition for its mass and the
/// chosen one for its point, each Lloyd iteration sends the centres to every partition and folds
/// their sums in partition order; a checkpoint at most every few seconds, after an iteration.
/// </summary>
public sealed class KMeansJobGrain(
    [PersistentState("kmeans-job")] IPersistentState<GridJobState<KMeansJobSpec>> state,
    IOptions<GridJobOptions> options,
    ILogger<KMeansJobGrain> logger) : GridJobGrain<KMeansJobSpec, KMeansCheckpoint>(state, options, logger), IKMeansJobGrain
{
    protected override string Algorithm => "kmeans";

    public Task<GridJobView> StartAsync(KMeansJobSpec spec, string? traceParent = null) => StartJobAsync(spec, traceParent);

    protected override string Run(
        KMeansJobSpec spec, GrainPartitions partitions, KMeansCheckpoint? resumeFrom, Action<KMeansCheckpoint> checkpoint, ChannelWriter<ClusteringProgress> progress, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(spec);
        return StateJson.Write(WeightedKMeans.Run(partitions, spec.Options, progress, resumeFrom, checkpoint, cancellationToken));
    }

    protected override void Describe(Activity span, KMeansCheckpoint checkpoint)
    {
        ArgumentNullException.ThrowIfNull(span);
        ArgumentNullException.ThrowIfNull(checkpoint);
        span.SetTag("salsa.kmeans.restart", checkpoint.Restart);
        span.SetTag("salsa.kmeans.iteration", checkpoint.Iteration);
    }
}
