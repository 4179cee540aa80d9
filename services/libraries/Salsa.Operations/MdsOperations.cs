using Salsa.Clustering.Mds;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Mds;
using Salsa.Contracts.Operations;
using Salsa.Hosting;
using T = Salsa.Contracts.Operations.ValueTypes;

namespace Salsa.Operations;

/// <summary>The MDS service's workflow operation, with SMACOF's defaults and this service's limits.</summary>
public static class MdsOperations
{
    public static IReadOnlyList<OperationSpec> Describe(ServiceLimits limits)
    {
        return
        [
            new()
            {
                Service = ServiceNames.Mds,
                Name = "embed",
                Progress = [new("iteration", "iterations"), new("objective", "stress")],
                Summary = $"Weighted SMACOF embedding of a dataset's items (all, or the ones listed; at most {Math.Min(limits.MaxEmbeddingItems, SmacofOptions.LargestSupportedItems):N0}) in 2 or 3 dimensions.",
                Inputs =
                [
                    new("dataset", $"{T.Points}|{T.Fingerprints}", true, "the items' dataset (Euclidean or Tanimoto distances)"),
                    new("items", T.Indices, false, "which items (e.g. cluster medoids); all when absent"),
                    new("weights", T.Numbers, false, "a weight per item (e.g. cluster sizes)"),
                ],
                Parameters = RequestParameters.Describe<StartEmbeddingRequest>(new SmacofOptions(), limits.Of),
                Outputs = [new("job", T.Embedding, "the embedding job (coordinates)"), new("stress", T.Number, "normalised stress"), new("items", T.Integer, "items embedded")],
                Artifacts = [Artifacts.Coordinates, Artifacts.Embedding],
                Execute = async c =>
                {
                    var request = c.Request<StartEmbeddingRequest>();
                    var job = await c.RunJobAsync(ServiceNames.Mds, (invoker, options) => new MdsClient(invoker).StartAsync(request, options));
                    var result = await new MdsClient(await c.InvokerAsync(ServiceNames.Mds)).GetResultAsync(new JobRef { JobId = job.JobId }, c.CallOptions);
                    return StepOutcome.Of(job, ("job", job.ToJson()), ("stress", result.NormalisedStress), ("items", result.Items));
                },
            },
        ];
    }
}
