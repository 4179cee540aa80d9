using System.Diagnostics;
using System.Threading.Channels;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Salsa.Clustering;
using Salsa.Clustering.Annealing;
using Salsa.Grid.Jobs;
using Salsa.Grid.Partitions;

namespace Salsa.Grid.Annealing;

/// <summary>Deterministic annealing over the partition grains: the annealing loop's passes go to every partition; a checkpoint at most every few seconds, at a temperature.</summary>
public sealed class AnnealingJobGrain(
    [PersistentState("annealing-job")] IPersistentState<GridJobState<AnnealingJobSpec>> state,
    IOptions<GridJobOptions> options,
    ILogger<AnnealingJobGrain> logger) : GridJobGrain<AnnealingJobSpec, AnnealingCheckpoint>(state, options, logger), IAnnealingJobGrain
{
    protected override string Algorithm => "annealing";

    public Task<GridJobView> StartAsync(AnnealingJobSpec spec, string? traceParent = null) => StartJobAsync(spec, traceParent);

    protected override string Run(
        AnnealingJobSpec spec, GrainPartitions partitions, AnnealingCheckpoint? resumeFrom, Action<AnnealingCheckpoint> checkpoint, ChannelWriter<ClusteringProgress> progress, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(spec);
        return StateJson.Write(DeterministicAnnealing.Run(partitions, spec.Options, progress, resumeFrom, checkpoint, cancellationToken));
    }

    protected override void Describe(Activity span, AnnealingCheckpoint checkpoint)
    {
        ArgumentNullException.ThrowIfNull(span);
        ArgumentNullException.ThrowIfNull(checkpoint);
        span.SetTag("salsa.annealing.temperature", checkpoint.Temperature);
        span.SetTag("salsa.annealing.clusters", checkpoint.Clusters);
    }
}
