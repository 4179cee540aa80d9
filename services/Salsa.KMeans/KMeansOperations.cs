using Salsa.Clustering.KMeans;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.KMeans;
using Salsa.Contracts.Operations;
using Salsa.Hosting;
using T = Salsa.Contracts.Operations.ValueTypes;

namespace Salsa.KMeans;

/// <summary>The k-means service's workflow operation, with the algorithm's defaults and this service's limits.</summary>
internal static class KMeansOperations
{
    public static IReadOnlyList<OperationSpec> Describe(ServiceLimits limits)
    {
        var defaults = new KMeansOptions();
        return
        [
            new()
            {
                Service = KMeansService.Name,
                Name = "cluster",
                Summary = "Weighted k-means (greedy k-means++ seeding, Lloyd iterations, restarts).",
                Inputs = [new("dataset", T.Points, true, "weighted points")],
                Parameters =
                [
                    new("clusters", ParameterKind.Integer, "K") { Required = true, Minimum = 1, Maximum = limits.MaxClusters },
                    new("restarts", ParameterKind.Integer, "k-means++ restarts, the best kept") { Default = defaults.Restarts, Minimum = 1, Maximum = limits.MaxRestarts },
                    new("maxIterations", ParameterKind.Integer, "Lloyd iterations per restart") { Default = defaults.MaxIterations, Minimum = 1, Maximum = limits.MaxIterations },
                    new("tolerance", ParameterKind.Number, "relative change of inertia that ends a restart") { Default = defaults.Tolerance, Minimum = 0 },
                    new("seed", ParameterKind.Integer, "random seed") { Default = defaults.Seed },
                ],
                Outputs = [new("job", T.Clustering, "the clustering job (assignments)"), new("clusters", T.Integer, "K"), new("inertia", T.Number, "weighted inertia"), new("table", T.Table, "one row per cluster"),
                    new("placement", T.Table, "where the job ran on the cluster: partitions, silos, passes and their compute and messaging (absent when it ran in the service)")],
                Artifacts = [Artifacts.Assignments, Artifacts.Clustering],
                ProgressLimit = "clusters",
                Execute = async c =>
                {
                    var request = new StartKMeansRequest
                    {
                        DatasetId = c.InputString("dataset"),
                        Clusters = c.Parameter<int>("clusters"),
                        Restarts = c.Parameter<int>("restarts"),
                        MaxIterations = c.Parameter<int>("maxIterations"),
                        Tolerance = c.Parameter<double>("tolerance"),
                        Seed = c.Parameter<int>("seed"),
                    };
                    var job = await c.RunJobAsync(KMeansService.Name, (invoker, options) => new KMeansClient(invoker).StartAsync(request, options));
                    var result = await new KMeansClient(await c.InvokerAsync(KMeansService.Name)).GetResultAsync(new JobRef { JobId = job.JobId }, c.CallOptions);
                    return StepOutcome.Of(job, ("job", job.ToJson()), ("clusters", result.Clustering.Clusters), ("inertia", result.Clustering.Cost), ("table", ClusterTable.Of(result.Clustering)),
                        ("placement", ClusterTable.Placement(result.Placement)));
                },
            },
        ];
    }
}
