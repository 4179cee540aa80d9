using Salsa.Clustering.KMeans;
using Salsa.Hosting;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Store;
using Salsa.Hosting.Clustering;

namespace Salsa.KMeans;

/// <summary>k-means as jobs: dense or binary input, progress after each Lloyd iteration.</summary>
public sealed class KMeansJobs(JobManager jobs, DatasetCatalog datasets, ServiceLimits limits)
    : VectorClusteringJobs<KMeansRequest, KMeansSummary>(jobs, datasets, limits)
{
    public override string Kind => "kmeans";

    protected override (int[] Assignments, KMeansSummary Summary) Cluster(KMeansRequest request, DatasetInfo info, VectorInput input, JobContext context)
    {
        var options = request.ToOptions(context.Parallelism);
        var result = input.Dense is { } dense
            ? WeightedKMeans.Run(dense, options, context.ClusteringProgress(), context.CancellationToken)
            : WeightedKMeans.Run(input.Binary!, options, context.ClusteringProgress(), context.CancellationToken);
        return (result.Assignments, KMeansSummary.From(DatasetCatalog.KindName(info.Kind), info.Count, result));
    }
}
