using Salsa.Clustering.Annealing;
using Salsa.Contracts.Annealing;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Operations;
using Salsa.Hosting;
using T = Salsa.Contracts.Operations.ValueTypes;

namespace Salsa.Operations;

/// <summary>
/// The annealing service's workflow operation: deterministic annealing of weighted points or of
/// binary fingerprints — the parameters of <see cref="StartAnnealingRequest"/> with the algorithm's
/// defaults and this service's limits.
/// </summary>
public static class AnnealingOperations
{
    public static IReadOnlyList<OperationSpec> Describe(ServiceLimits limits)
    {
        ArgumentNullException.ThrowIfNull(limits);
        return
        [
            new()
            {
                Service = ServiceNames.Annealing,
                Name = "cluster",
                Summary = "Deterministic-annealing clustering of weighted points or of binary fingerprints.",
                Inputs = [new("dataset", $"{T.Points}|{T.Fingerprints}", true, "weighted points (Euclidean distances) or binary fingerprints (Hamming distances)")],
                Parameters = RequestParameters.Describe<StartAnnealingRequest>(new AnnealingOptions(), limits.Of),
                Outputs =
                [
                    new("job", T.Clustering, "the clustering job (assignments)"), new("clusters", T.Integer, "clusters found"),
                    new("weightedCost", T.Number, "weighted squared-distance cost of the final assignment"), new("iterations", T.Integer, "EM iterations in all"),
                    new("table", T.Table, "one row per cluster"),
                    new("placement", T.Table, "where the job ran on the cluster: partitions, silos, passes and their compute and messaging (absent when it ran in the service)") { DescribesExecution = true },
                ],
                Artifacts = [Artifacts.Assignments, Artifacts.Clustering],
                ProgressLimit = "maxClusters",
                Progress = [new("iteration", "EM iterations"), new("temperature", "temperature"), new("clusters", "clusters"), new("objective", "free energy")],
                Execute = async c =>
                {
                    var request = c.Request<StartAnnealingRequest>();
                    var job = await c.RunJobAsync(ServiceNames.Annealing, (invoker, options) => new AnnealingClient(invoker).StartAsync(request, options));
                    var answer = await new AnnealingClient(await c.InvokerAsync(ServiceNames.Annealing)).GetResultAsync(new JobRef { JobId = job.JobId }, c.CallOptions);
                    return StepOutcome.Of(job, ("job", job.ToJson()), ("clusters", answer.Clustering.Clusters), ("weightedCost", answer.Clustering.Cost), ("iterations", answer.Iterations),
                        ("table", ClusterTable.Of(answer.Clustering)), ("placement", ClusterTable.Placement(answer.Placement)));
                },
            },
        ];
    }
}
