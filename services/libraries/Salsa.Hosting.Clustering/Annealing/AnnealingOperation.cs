using Grpc.Core;
using Salsa.Clustering.Annealing;
using Salsa.Contracts.Annealing;
using Salsa.Contracts.Common;
using Salsa.Contracts.Operations;
using T = Salsa.Contracts.Operations.ValueTypes;

namespace Salsa.Hosting.Clustering.Annealing;

/// <summary>
/// Deterministic annealing as a workflow operation, for each service that serves it (the annealing
/// service on points, the fingerprints service on fingerprints): the parameters of
/// <see cref="AnnealingRequest"/> with the algorithm's defaults and bounds and this service's limits.
/// </summary>
public static class AnnealingOperation
{
    public static OperationSpec Describe(string service, string name, string inputType, string summary, ServiceLimits limits,
        Func<CallInvoker, StartAnnealingRequest, CallOptions, AsyncUnaryCall<JobInfo>> start,
        Func<CallInvoker, JobRef, CallOptions, AsyncUnaryCall<Contracts.Annealing.AnnealingResult>> result)
    {
        ArgumentNullException.ThrowIfNull(limits);
        var defaults = new AnnealingOptions();
        return new()
        {
            Service = service,
            Name = name,
            Summary = summary,
            Inputs = [new("dataset", inputType, true, inputType == T.Points ? "weighted points" : "binary fingerprints")],
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

                var job = await c.RunJobAsync(service, (invoker, options) => start(invoker, request, options));
                var answer = await result(await c.InvokerAsync(service), new JobRef { JobId = job.JobId }, c.CallOptions);
                return StepOutcome.Of(job, ("job", job.ToJson()), ("clusters", answer.Clusters), ("weightedCost", answer.WeightedCost), ("iterations", answer.Iterations),
                    ("table", ClusterTable.Of(answer.Clustering)), ("placement", ClusterTable.Placement(answer.Placement)));
            },
        };
    }
}
