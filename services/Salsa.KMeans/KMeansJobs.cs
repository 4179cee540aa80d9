using Microsoft.Extensions.Options;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;
using Salsa.Contracts.Common;
using Salsa.Contracts.KMeans;
using Salsa.Contracts.Operations;
using Salsa.Hosting;
using Salsa.Hosting.Clustering;
using Salsa.Hosting.Clustering.Grid;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Store;
using KMeansResult = Salsa.Contracts.KMeans.KMeansResult; // the message; the algorithm's result is Salsa.Clustering's

namespace Salsa.KMeans;

/// <summary>k-means as jobs: dense or binary input, progress after each Lloyd iteration.</summary>
/// <remarks>With <c>Cluster:Enabled</c>, dense datasets are clustered on the grid (<see cref="GridCompute"/>); binary ones stay here.</remarks>
public sealed class KMeansJobs(JobManager jobs, DatasetCatalog datasets, IOptions<ServiceLimits> limits, GridCompute? grid = null)
    : VectorClusteringJobs<StartKMeansRequest, KMeansOptions, KMeansResult>(jobs, datasets, limits)
{
    public override string Kind => "kmeans";

    protected override ClusteringResult ClusteringOf(KMeansResult result) => result.Clustering;

    protected override string DatasetOf(StartKMeansRequest request) => request.DatasetId;

    protected override KMeansOptions OptionsOf(StartKMeansRequest request, ParallelismOptions parallel) =>
        RequestParameters.Bind(request, new KMeansOptions { Parallel = parallel });

    protected override void Validate(KMeansOptions options, int points) => options.Validate(points);

    protected override async Task<(int[] Assignments, KMeansResult Result)> ClusterAsync(KMeansOptions options, DatasetInfo info, VectorInput input, JobContext context)
    {
        if (grid is null || input.Dense is null)
        {
            return Cluster(options, info, input, context);
        }

        var (result, placement) = await grid.KMeansAsync(context, info.Id, info.Count, options).ConfigureAwait(false);
        return (result.Assignments, result.ToMessage(DatasetCatalog.KindName(info.Kind), info.Count, placement));
    }

    protected override (int[] Assignments, KMeansResult Result) Cluster(KMeansOptions options, DatasetInfo info, VectorInput input, JobContext context)
    {
        var result = input.Dense is { } dense
            ? WeightedKMeans.Run(dense, options, context.ClusteringProgress(), context.CancellationToken)
            : WeightedKMeans.Run(input.Binary!, options, context.ClusteringProgress(), context.CancellationToken);
        return (result.Assignments, result.ToMessage(DatasetCatalog.KindName(info.Kind), info.Count));
    }
}
