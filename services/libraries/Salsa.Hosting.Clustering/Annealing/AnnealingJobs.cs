using Microsoft.Extensions.Options;
using Salsa.Clustering.Annealing;
using Salsa.Hosting.Clustering.Grid;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Store;

namespace Salsa.Hosting.Clustering.Annealing;

/// <summary>Deterministic annealing as jobs: dense or binary input, progress after each temperature.</summary>
/// <remarks>With <c>Cluster:Enabled</c>, dense datasets are annealed on the grid (<see cref="GridCompute"/>); binary ones stay here.</remarks>
public sealed class AnnealingJobs(JobManager jobs, DatasetCatalog datasets, IOptions<ServiceLimits> limits, GridCompute? cluster = null)
    : VectorClusteringJobs<AnnealingRequest, Contracts.Annealing.AnnealingResult>(jobs, datasets, limits)
{
    public override string Kind => "annealing";

    protected override Contracts.Common.ClusteringResult ClusteringOf(Contracts.Annealing.AnnealingResult result) => result.Clustering;

    protected override async Task<(int[] Assignments, Contracts.Annealing.AnnealingResult Result)> ClusterAsync(AnnealingRequest request, DatasetInfo info, VectorInput input, JobContext context)
    {
        if (cluster is null || input.Dense is null)
        {
            return Cluster(request, info, input, context);
        }

        var (result, placement) = await cluster.AnnealAsync(context, info.Id, info.Count, request.ToOptions(context.Parallelism, Limits.MaxTemperatures)).ConfigureAwait(false);
        return (result.Assignments, result.ToMessage(DatasetCatalog.KindName(info.Kind), info.Count, placement));
    }

    protected override (int[] Assignments, Contracts.Annealing.AnnealingResult Result) Cluster(AnnealingRequest request, DatasetInfo info, VectorInput input, JobContext context)
    {
        var options = request.ToOptions(context.Parallelism, Limits.MaxTemperatures);
        var result = input.Dense is { } dense
            ? DeterministicAnnealing.Run(dense, options, context.ClusteringProgress(), context.CancellationToken)
            : DeterministicAnnealing.Run(input.Binary!, options, context.ClusteringProgress(), context.CancellationToken);
        return (result.Assignments, result.ToMessage(DatasetCatalog.KindName(info.Kind), info.Count));
    }
}
