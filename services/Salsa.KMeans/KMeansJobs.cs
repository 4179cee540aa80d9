using Microsoft.Extensions.Options;
using Salsa.Clustering.KMeans;
using Salsa.Hosting;
using Salsa.Hosting.Clustering;
using Salsa.Hosting.Clustering.Grid;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Store;

namespace Salsa.KMeans;

/// <summary>k-means as jobs: dense or binary input, progress after each Lloyd iteration.</summary>
/// <remarks>With <c>Cluster:Enabled</c>, dense datasets are clustered on the cluster (<see cref="GridCompute"/>); binary ones stay here.</remarks>
public sealed class KMeansJobs(JobManager jobs, DatasetCatalog datasets, IOptions<ServiceLimits> limits, GridCompute? cluster = null)
    : VectorClusteringJobs<KMeansRequest, Contracts.KMeans.KMeansResult>(jobs, datasets, limits)
{
    public override string Kind => "kmeans";

    protected override Contracts.Common.ClusteringResult ClusteringOf(Contracts.KMeans.KMeansResult result) => result.Clustering;

    protected override async Task<(int[] Assignments, Contracts.KMeans.KMeansResult Result)> ClusterAsync(KMeansRequest request, DatasetInfo info, VectorInput input, JobContext context)
    {
        if (cluster is null || input.Dense is null)
        {
            return Cluster(request, info, input, context);
        }

        var (result, placement) = await cluster.KMeansAsync(context, info.Id, info.Count, request.ToOptions(context.Parallelism)).ConfigureAwait(false);
        return (result.Assignments, result.ToMessage(DatasetCatalog.KindName(info.Kind), info.Count, placement));
    }

    protected override (int[] Assignments, Contracts.KMeans.KMeansResult Result) Cluster(KMeansRequest request, DatasetInfo info, VectorInput input, JobContext context)
    {
        var options = request.ToOptions(context.Parallelism);
        var result = input.Dense is { } dense
            ? WeightedKMeans.Run(dense, options, context.ClusteringProgress(), context.CancellationToken)
            : WeightedKMeans.Run(input.Binary!, options, context.ClusteringProgress(), context.CancellationToken);
        return (result.Assignments, result.ToMessage(DatasetCatalog.KindName(info.Kind), info.Count));
    }
}
