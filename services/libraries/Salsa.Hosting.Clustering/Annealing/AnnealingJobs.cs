using Salsa.Clustering.Annealing;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Store;

namespace Salsa.Hosting.Clustering.Annealing;

/// <summary>Deterministic annealing as jobs: dense or binary input, progress after each temperature.</summary>
public sealed class AnnealingJobs(JobManager jobs, DatasetCatalog datasets, ServiceLimits limits)
    : VectorClusteringJobs<AnnealingRequest, AnnealingSummary>(jobs, datasets, limits)
{
    public override string Kind => "annealing";

    protected override (int[] Assignments, AnnealingSummary Summary) Cluster(AnnealingRequest request, DatasetInfo info, VectorInput input, JobContext context)
    {
        var options = request.ToOptions(context.Parallelism, Limits.MaxTemperatures);
        var result = input.Dense is { } dense
            ? DeterministicAnnealing.Run(dense, options, context.ClusteringProgress(), context.CancellationToken)
            : DeterministicAnnealing.Run(input.Binary!, options, context.ClusteringProgress(), context.CancellationToken);
        return (result.Assignments, AnnealingSummary.From(DatasetCatalog.KindName(info.Kind), info.Count, result));
    }
}
