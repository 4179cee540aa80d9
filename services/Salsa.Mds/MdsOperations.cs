using System.Text.Json;
using Salsa.Clustering.Mds;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Mds;
using Salsa.Contracts.Operations;
using Salsa.Hosting;
using T = Salsa.Contracts.Operations.ValueTypes;

namespace Salsa.Mds;

/// <summary>The MDS service's workflow operation, with SMACOF's defaults and this service's limits.</summary>
internal static class MdsOperations
{
    public static IReadOnlyList<OperationSpec> Describe(ServiceLimits limits)
    {
        var defaults = new SmacofOptions();
        return
        [
            new()
            {
                Service = MdsService.Name,
                Name = "embed",
                Summary = $"Weighted SMACOF embedding of a dataset's items (all, or the ones listed; at most {Math.Min(limits.MaxEmbeddingItems, SmacofOptions.LargestSupportedItems):N0}) in 2 or 3 dimensions.",
                Inputs =
                [
                    new("dataset", $"{T.Points}|{T.Fingerprints}", true, "the items' dataset (Euclidean or Tanimoto distances)"),
                    new("items", T.Indices, false, "which items (e.g. cluster medoids); all when absent"),
                    new("weights", T.Numbers, false, "a weight per item (e.g. cluster sizes)"),
                ],
                Parameters =
                [
                    new("dimensions", ParameterKind.Integer, "2 or 3") { Default = defaults.Dimensions, Minimum = 2, Maximum = 3 },
                    new("maxIterations", ParameterKind.Integer, "SMACOF iterations") { Default = defaults.MaxIterations, Minimum = 1, Maximum = limits.MaxIterations },
                    new("tolerance", ParameterKind.Number, "relative change of stress that ends the iterations") { Default = defaults.Tolerance, Minimum = 0 },
                ],
                Outputs = [new("job", T.Embedding, "the embedding job (coordinates)"), new("stress", T.Number, "normalised stress"), new("items", T.Integer, "items embedded")],
                Artifacts = [Artifacts.Coordinates, Artifacts.Embedding],
                Execute = async c =>
                {
                    var request = new StartEmbeddingRequest
                    {
                        DatasetId = c.InputString("dataset"),
                        Dimensions = c.Parameter<int>("dimensions"),
                        MaxIterations = c.Parameter<int>("maxIterations"),
                        Tolerance = c.Parameter<double>("tolerance"),
                    };
                    if (c.HasInput("items"))
                    {
                        request.Items.AddRange(c.Input("items").Deserialize<int[]>()!);
                    }

                    if (c.HasInput("weights"))
                    {
                        request.ItemWeights.AddRange(c.Input("weights").Deserialize<double[]>()!);
                    }

                    var job = await c.RunJobAsync(MdsService.Name, (invoker, options) => new MdsClient(invoker).StartAsync(request, options));
                    var result = await new MdsClient(await c.InvokerAsync(MdsService.Name)).GetResultAsync(new JobRef { JobId = job.JobId }, c.CallOptions);
                    return StepOutcome.Of(job, ("job", job.ToJson()), ("stress", result.NormalisedStress), ("items", result.Items));
                },
            },
        ];
    }
}
