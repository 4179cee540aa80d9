using System.Text.Json.Nodes;
using Salsa.Clustering.Fingerprints;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Fingerprints;
using Salsa.Contracts.Operations;
using Salsa.DataFiles;
using Salsa.Hosting;
using T = Salsa.Contracts.Operations.ValueTypes;

namespace Salsa.Operations;

/// <summary>The fingerprints service's workflow operations: Butina clustering and similarity search (annealing of fingerprints is the annealing service's).</summary>
public static class FingerprintsOperations
{
    public static IReadOnlyList<OperationSpec> Describe(ServiceLimits limits) => [Butina(limits), Search()];

    private static OperationSpec Butina(ServiceLimits limits)
    {
        ParameterSpec medoidCount = new("medoids", ParameterKind.Integer, "how many medoids (of the largest clusters) to output") { Default = 500, Minimum = 1, Maximum = limits.MaxEmbeddingItems, OperationOnly = true };
        ParameterSpec tableRows = new("tableRows", ParameterKind.Integer, "rows of the cluster table (largest clusters)") { Default = 20, Minimum = 0, Maximum = 1000, OperationOnly = true };
        return new()
        {
            Service = ServiceNames.Fingerprints,
            Name = "butina",
            Progress = [new("clusters", "clusters")],
            Summary = "Taylor–Butina clustering by Tanimoto distance; the medoids of the largest clusters.",
            Inputs = [new("dataset", T.Fingerprints, true, "binary fingerprints")],
            Parameters =
            [
                .. RequestParameters.Describe<StartButinaRequest>(new ButinaOptions(), limits.Of),
                medoidCount,
                tableRows,
            ],
            Outputs =
            [
                new("job", T.Butina, "the Butina job"), new("clusters", T.Integer, "clusters, singletons included"), new("singletons", T.Integer, "clusters of one"),
                new("medoids", T.Indices, "medoid of each of the largest clusters"), new("sizes", T.Numbers, "their sizes"), new("table", T.Table, "the largest clusters"),
            ],
            Artifacts = [Artifacts.Assignments, Artifacts.Clustering],
            Execute = async c =>
            {
                var request = c.Request<StartButinaRequest>();
                var job = await c.RunJobAsync(ServiceNames.Fingerprints, (invoker, o) => new FingerprintsClient(invoker).StartButinaAsync(request, o));
                var result = await new FingerprintsClient(await c.InvokerAsync(ServiceNames.Fingerprints)).GetButinaResultAsync(new JobRef { JobId = job.JobId }, c.CallOptions);
                var largest = result.Cluster.Select((cluster, index) => (cluster, index)).OrderByDescending(x => x.cluster.Size).ThenBy(x => x.index).ToList();
                var medoids = largest.Take(c.Get<int>(medoidCount)).ToList();
                var table = new JsonArray([.. largest.Take(c.Get<int>(tableRows)).Select(x => (JsonNode)new JsonObject
                {
                    ["cluster"] = x.index,
                    ["size"] = x.cluster.Size,
                    ["medoid"] = x.cluster.Medoid,
                    ["meanSimilarity"] = Math.Round(x.cluster.MeanSimilarity, 4),
                })]);
                return StepOutcome.Of(job, ("job", job.ToJson()), ("clusters", result.Clustering.Clusters), ("singletons", result.Singletons),
                    ("medoids", new JsonArray([.. medoids.Select(x => (JsonNode)x.cluster.Medoid)])),
                    ("sizes", new JsonArray([.. medoids.Select(x => (JsonNode)x.cluster.Size)])),
                    ("table", table));
            },
        };
    }

    private static OperationSpec Search()
    {
        InputSpec fingerprints = new("dataset", T.Fingerprints, true, "the fingerprints searched");
        InputSpec butina = new("butina", T.Butina, false, "a Butina clustering of that dataset, to prune the search");
        ParameterSpec querySmiles = new("querySmiles", ParameterKind.String, "the query molecule as a SMILES: RDKit fingerprints it as the dataset's were (read when the run is submitted: one RDKit cannot read refuses the run)") { IsMolecule = true };
        ParameterSpec queryHex = new("queryHex", ParameterKind.String, "the query fingerprint in the data files' hex encoding");
        ParameterSpec fingerprintType = new("fingerprintType", ParameterKind.String, "the query's fingerprint type (the dataset's)") { Default = FingerprintType.Ecfp4.Name };
        ParameterSpec k = new("k", ParameterKind.Integer, "hits") { Default = 10, Minimum = 1, Maximum = SearchBounds.DefaultMaxK };
        return new()
        {
            Service = ServiceNames.Fingerprints,
            Name = "search",
            Progress = [new("iteration", "compounds searched")],
            Summary = "The k compounds most similar (Tanimoto) to a query molecule (SMILES, fingerprinted by RDKit) or fingerprint (hex), pruned through a Butina clustering when given. Give querySmiles or queryHex.",
            Inputs = [fingerprints, butina],
            Parameters =
            [
                querySmiles,
                queryHex,
                fingerprintType,
                k,
            ],
            Outputs = [new("table", T.Table, "the hits, most similar first"), new("distancesComputed", T.Integer, "Tanimoto distances the search computed")],
            Execute = async c =>
            {
                var request = new SearchRequest
                {
                    DatasetId = c.InputString(fingerprints),
                    QueryHex = c.TextOrEmpty(queryHex),
                    QuerySmiles = c.TextOrEmpty(querySmiles),
                    FingerprintType = c.Get<string>(fingerprintType),
                    K = c.Get<int>(k),
                };
                if (c.Has(butina))
                {
                    request.ButinaJobId = c.InputJob(butina).JobId;
                }

                var response = await new FingerprintsClient(await c.InvokerAsync(ServiceNames.Fingerprints)).SearchAsync(request, c.CallOptions);
                var table = new JsonArray([.. response.Hits.Select((h, rank) => (JsonNode)new JsonObject
                {
                    ["rank"] = rank + 1,
                    ["index"] = h.Index,
                    ["compound"] = h.Label,
                    ["similarity"] = Math.Round(h.Similarity, 4),
                    ["smiles"] = h.Smiles.Length > 0 ? h.Smiles : null,
                })]);
                return StepOutcome.Of(("table", table), ("distancesComputed", response.DistancesComputed));
            },
        };
    }
}
