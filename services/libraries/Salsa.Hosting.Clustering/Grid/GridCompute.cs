using System.Diagnostics;
using Microsoft.Extensions.Options;
using Salsa.Clustering;
using Salsa.Clustering.Annealing;
using Salsa.Clustering.KMeans;
using Salsa.Contracts.Common;
using Salsa.Grid.Annealing;
using Salsa.Grid.Jobs;
using Salsa.Grid.KMeans;
using Salsa.Grid.Partitions;
using Salsa.Hosting.Jobs;
using JobState = Salsa.Store.JobState;

namespace Salsa.Hosting.Clustering.Grid;

/// <summary>
/// A service's jobs computed on the grid (the machine level): the service's process is a silo of
/// the Orleans cluster (<c>Cluster:Enabled</c>; with a PostgreSQL connection string it joins the
/// others, without one it is a single localhost silo), a job is a coordinator grain keyed by the
/// job's id, and the job follows the coordinator's stream — progress, and through a lost silo — until it ends.
/// </summary>
public sealed class GridCompute(IGrainFactory grains, IOptions<PartitionLayout> options)
{
    private readonly PartitionLayout _layout = options.Value;

    // How long to wait before asking a lost coordinator's job again.
    private static readonly TimeSpan s_retry = TimeSpan.FromMilliseconds(200);

    /// <summary>Deterministic annealing of a dense dataset on the grid; the job's id names its coordinator, so a job run again (after a restart) finds the same run.</summary>
    public async Task<(AnnealingResult Result, ClusterPlacement Placement)> AnnealAsync(JobContext context, Guid datasetId, int points, AnnealingOptions options)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(options);
        var coordinator = grains.GetGrain<IAnnealingJobGrain>(context.JobId);
        var spec = AnnealingJobSpec.From(datasetId, _layout.PartitionsFor(points), options);
        await coordinator.StartAsync(spec, Activity.Current?.Id).WaitAsync(context.CancellationToken).ConfigureAwait(false);
        var (json, placement) = await WatchAsync(context, coordinator).ConfigureAwait(false);
        return (StateJson.Read<AnnealingResult>(json), placement);
    }

    /// <summary>k-means of a dense dataset on the grid, its coordinator named by the job's id.</summary>
    public async Task<(KMeansResult Result, ClusterPlacement Placement)> KMeansAsync(JobContext context, Guid datasetId, int points, KMeansOptions options)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(options);
        var coordinator = grains.GetGrain<IKMeansJobGrain>(context.JobId);
        var spec = KMeansJobSpec.From(datasetId, _layout.PartitionsFor(points), options);
        await coordinator.StartAsync(spec, Activity.Current?.Id).WaitAsync(context.CancellationToken).ConfigureAwait(false);
        var (json, placement) = await WatchAsync(context, coordinator).ConfigureAwait(false);
        return (StateJson.Read<KMeansResult>(json), placement);
    }

    /// <summary>
    /// Exact top-k similarity search of a fingerprint dataset over its partitions on the grid:
    /// the brute-force answer over the whole set, hit for hit, with the hits' labels.
    /// </summary>
    public Task<PartitionSearchResult> SearchAsync(Guid datasetId, int points, ulong[] query, int k, CancellationToken cancellationToken) =>
        PartitionSearch.SearchAsync(grains, datasetId, points, _layout.PartitionsFor(points), query, k, TimeSpan.FromSeconds(30), cancellationToken);

    /// <summary>
    /// Follows a started job's stream until it ends: its progress goes to the job's stream, a
    /// cancelled job cancels it, and when the coordinator's silo is lost the stream is asked for
    /// again until the job resumes on a survivor.
    /// </summary>
    private static async Task<(string Result, ClusterPlacement Placement)> WatchAsync(JobContext context, IGridJobGrain coordinator)
    {
        var progress = context.ClusteringProgress();
        using var cancel = context.CancellationToken.Register(() => _ = coordinator.CancelAsync());
        var view = default(GridJobView);
        var reported = (Iteration: -1, Phase: "");
        while (view is not { IsFinished: true })
        {
            try
            {
                await foreach (var next in coordinator.WatchAsync(context.CancellationToken).ConfigureAwait(false))
                {
                    view = next;
                    if (view.Phase is { } phase && (view.Iterations, phase) != reported)
                    {
                        reported = (view.Iterations, phase);
                        progress.TryWrite(new ClusteringProgress(view.Algorithm, phase, view.Iterations, view.Temperature, view.Clusters, view.Objective, view.Elapsed));
                    }
                }
            }
            catch (Exception exception) when (exception is OrleansException or TimeoutException or EnumerationAbortedException
                || (exception is OperationCanceledException && !context.CancellationToken.IsCancellationRequested))
            {
                // The coordinator's silo is being replaced (the runtime may cancel a call whose
                // directory lookup waited on the lost silo); the job resumes on a survivor.
                await Task.Delay(s_retry, context.CancellationToken).ConfigureAwait(false);
            }
        }

        // The passes ran on the silos' threads, outside the job's flow: their CPU time is the job's too.
        context.AddGridCpu(TimeSpan.FromMicroseconds(view.Passes.CpuMicroseconds));
        context.CancellationToken.ThrowIfCancellationRequested();
        if (view.Status != JobState.Succeeded)
        {
            throw new InvalidOperationException($"The {view.Algorithm} job on the grid {JobViews.StateName(view.Status ?? JobState.Queued)}: {view.Error}");
        }

        var json = await coordinator.ResultAsync().ConfigureAwait(false) ?? throw new InvalidOperationException("The grid job succeeded without a result.");
        return (json, Placement(view));
    }

    /// <summary>Where the job ran: kept with its result (the result message's <c>placement</c>).</summary>
    private static ClusterPlacement Placement(GridJobView view)
    {
        var passes = Math.Max(1, view.Passes.Passes);
        var placement = new ClusterPlacement
        {
            Partitions = view.Partitions,
            Coordinator = view.Coordinator ?? "",
            Resumes = view.Resumes,
            Passes = view.Passes.Passes,
            Retries = view.Passes.Retries,
            ComputeUsPerPass = view.Passes.ComputeMicroseconds / passes,
            MessagingUsPerPass = view.Passes.MessagingMicroseconds / passes,
        };
        placement.Silos.Add(view.Silos);
        return placement;
    }
}
