using Salsa.Clustering.KMeans;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.KMeans;
using Salsa.Contracts.Operations;
using Salsa.Hosting;
using T = Salsa.Contracts.Operations.ValueTypes;

namespace Salsa.Operations;

/// <summary>The k-means service's workflow operation, with the algorithm's defaults and this service's limits.</summary>
public static class KMeansOperations
{
    public static IReadOnlyList<OperationSpec> Describe(ServiceLimits limits)
    {
        return
        [
            new()
            {
                Service = ServiceNames.KMeans,
                Name = "cluster",
                Summary = "Weighted k-means (greedy k-means++ seeding, Lloyd iterations, restarts).",
                Inputs = [new("dataset", T.Points, true, "weighted points")],
                Parameters = RequestParameters.Describe<StartKMeansRequest>(new KMeansOptions(), limits.Of),
                Outputs = [new("job", T.Clustering, "the clustering job (assignments)"), new("clusters", T.Integer, "K"), new("inertia", T.Number, "weighted inertia"), new("table", T.Table, "one row per cluster"),
                    new("placement", T.Table, "where the job ran on the cluster: partitions, silos, passes and their compute and messaging (absent when it ran in the service)") { DescribesExecution = true }],
                Artifacts = [Artifacts.Assignments, Artifacts.Clustering],
                ProgressLimit = "clusters",
                Progress = [new("iteration", "Lloyd iterations"), new("clusters", "K"), new("objective", "inertia")],
                Execute = async c =>
                {
                    var request = c.Request<StartKMeansRequest>();
                    var job = await c.RunJobAsync(ServiceNames.KMeans, (invoker, options) => new KMeansClient(invoker).StartAsync(request, options));
                    var result = await new KMeansClient(await c.InvokerAsync(ServiceNames.KMeans)).GetResultAsync(new JobRef { JobId = job.JobId }, c.CallOptions);
                    return StepOutcome.Of(job, ("job", job.ToJson()), ("clusters", result.Clustering.Clusters), ("inertia", result.Clustering.Cost), ("table", ClusterTable.Of(result.Clustering)),
                        ("placement", ClusterTable.Placement(result.Placement)));
                },
            },
        ];
    }
}
