using Salsa.Clustering.Annealing;
using Salsa.Contracts.Annealing;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Operations;
using Salsa.Hosting;
using T = Salsa.Contracts.Operations.ValueTypes;
using Salsa.Hosting.Clustering.Annealing;

namespace Salsa.Annealing;

/// <summary>
/// The annealing service's workflow operation: deterministic annealing of weighted points or of
/// binary fingerprints — the parameters of <see cref="AnnealingRequest"/> with the algorithm's
/// defaults and bounds and this service's limits.
/// </summary>
internal static class AnnealingOperations
{
    public static IReadOnlyList<OperationSpec> Describe(ServiceLimits limits)
    {
        ArgumentNullException.ThrowIfNull(limits);
        var defaults = new AnnealingOptions();
        return
        [
            new()
            {
                Service = AnnealingService.Name,
                Name = "cluster",
                Summary = "Deterministic-annealing clustering of weighted points or of binary fingerprints.",
                Inputs = [new("dataset", $"{T.Points}|{T.Fingerprints}", true, "weighted points (Euclidean distances) or binary fingerprints (Hamming distances)")],
                Parameters =
                [
                    new("maxClusters", ParameterKind.Integer, "Kmax: clusters split until this many") { Required = true, Minimum = 1, Maximum = limits.MaxClusters },
                    new("coolingFactor", ParameterKind.Number, "temperature multiplier per step (cooling jumps to just below the next critical temperature when that is lower)") { Default = defaults.CoolingFactor, ExclusiveMinimum = 0, ExclusiveMaximum = 1 },
                    new("fixedCooling", ParameterKind.Boolean, "multiply by coolingFactor at every step: the classic geometric schedule, far slower") { Default = defaults.FixedCooling },
                    new("startTemperature", ParameterKind.Number, "start temperature (default: just above the first critical one)") { ExclusiveMinimum = 0 },
                    new("minTemperature", ParameterKind.Number, $"the temperature that ends annealing (default: {AnnealingOptions.DefaultTemperatureRange:0.######} of the start)") { ExclusiveMinimum = 0 },
                    new("maxIterationsPerTemperature", ParameterKind.Integer, "EM iterations per temperature") { Default = defaults.MaxIterationsPerTemperature, Minimum = 1, Maximum = limits.MaxIterations },
                    new("tolerance", ParameterKind.Number, "convergence at a temperature T: no centre moves more than √(tolerance·T) in an iteration") { Default = defaults.Tolerance, ExclusiveMinimum = 0 },
                    new("splitMergeAttempts", ParameterKind.Integer, "split–merge moves tried at T = 0 (0: none)") { Default = defaults.SplitMergeAttempts, Minimum = 0, Maximum = limits.MaxSplitMergeAttempts },
                ],
                Outputs =
                [
                    new("job", T.Clustering, "the clustering job (assignments)"), new("clusters", T.Integer, "clusters found"),
                    new("weightedCost", T.Number, "weighted squared-distance cost of the final assignment"), new("iterations", T.Integer, "EM iterations in all"),
                    new("table", T.Table, "one row per cluster"),
                    new("placement", T.Table, "where the job ran on the cluster: partitions, silos, passes and their compute and messaging (absent when it ran in the service)"),
                ],
                Artifacts = [Artifacts.Assignments, Artifacts.Clustering],
                ProgressLimit = "maxClusters",
                Execute = async c =>
                {
                    var request = new StartAnnealingRequest
                    {
                        DatasetId = c.InputString("dataset"),
                        MaxClusters = c.Parameter<int>("maxClusters"),
                        CoolingFactor = c.Parameter<double>("coolingFactor"),
                        FixedCooling = c.Parameter<bool>("fixedCooling"),
                        MaxIterationsPerTemperature = c.Parameter<int>("maxIterationsPerTemperature"),
                        Tolerance = c.Parameter<double>("tolerance"),
                        SplitMergeAttempts = c.Parameter<int>("splitMergeAttempts"),
                    };
                    if (c.OptionalParameter<double>("startTemperature") is { } startTemperature)
                    {
                        request.StartTemperature = startTemperature;
                    }

                    if (c.OptionalParameter<double>("minTemperature") is { } minTemperature)
                    {
                        request.MinTemperature = minTemperature;
                    }

                    var job = await c.RunJobAsync(AnnealingService.Name, (invoker, options) => new AnnealingClient(invoker).StartAsync(request, options));
                    var answer = await new AnnealingClient(await c.InvokerAsync(AnnealingService.Name)).GetResultAsync(new JobRef { JobId = job.JobId }, c.CallOptions);
                    return StepOutcome.Of(job, ("job", job.ToJson()), ("clusters", answer.Clustering.Clusters), ("weightedCost", answer.Clustering.Cost), ("iterations", answer.Iterations),
                        ("table", ClusterTable.Of(answer.Clustering)), ("placement", ClusterTable.Placement(answer.Placement)));
                },
            },
        ];
    }
}
