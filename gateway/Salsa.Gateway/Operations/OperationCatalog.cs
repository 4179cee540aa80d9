using System.Text.Json;
using System.Text.Json.Nodes;
using Salsa.Census;
using Salsa.Chem;
using Salsa.Contracts.Annealing;
using Salsa.Contracts.Census;
using Salsa.Contracts.Chem;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Common;
using Salsa.Contracts.Fingerprints;
using Salsa.Contracts.KMeans;
using Salsa.Contracts.Mds;
using Salsa.Contracts.Render;
using Salsa.Hosting.Jobs;
using T = Salsa.Gateway.Operations.ValueTypes;

namespace Salsa.Gateway.Operations;

/// <summary>
/// Every operation a workflow step can name, with its typed inputs, parameters and outputs, and the
/// gRPC calls that perform it. Documented in <c>docs/workflows.md</c>; the loader checks workflows
/// against these specifications.
/// </summary>
public sealed class OperationCatalog
{
    private readonly Dictionary<string, OperationSpec> _operations;

    public OperationCatalog()
    {
        _operations = All().ToDictionary(o => o.Key, StringComparer.Ordinal);
    }

    public IReadOnlyCollection<OperationSpec> Specifications => _operations.Values;

    public IReadOnlyList<string> Services => [.. _operations.Values.Select(o => o.Service).Distinct().Order(StringComparer.Ordinal)];

    public IReadOnlyList<OperationSpec> Operations(string service) => [.. _operations.Values.Where(o => o.Service == service)];

    public OperationSpec? Find(string service, string operation) => _operations.GetValueOrDefault($"{service}.{operation}");

    private static IEnumerable<OperationSpec> All()
    {
        yield return new OperationSpec
        {
            Service = "census",
            Name = "import",
            Summary = "Imports a census block-group file into the store (once; later imports reuse it).",
            Parameters = [new("source", ParameterKind.String, "the census file") { Required = true, Allowed = [.. CensusCatalog.Sources.Select(s => s.Name)] }],
            Outputs = [new("dataset", T.CensusDataset, "the imported block groups"), new("count", T.Integer, "block groups")],
            Execute = async c =>
            {
                var info = await c.CallAsync("census", "Import", new ImportCensusRequest { Source = c.Parameter<string>("source") }, (ch, r, o) => new CensusClient(ch).ImportAsync(r, o));
                return Outcome(("dataset", info.DatasetId), ("count", info.Count));
            },
        };

        yield return new OperationSpec
        {
            Service = "census",
            Name = "query",
            Summary = "Selects block groups (states, counties, a bounding box) and projects them to planar km, weighted by population.",
            Inputs = [new("dataset", T.CensusDataset, true, "imported block groups")],
            Parameters =
            [
                new("states", ParameterKind.StringList, "two-digit state FIPS codes"),
                new("counties", ParameterKind.StringList, "five-digit county FIPS codes"),
                new("boundingBox", ParameterKind.NumberList, "minLatitude, minLongitude, maxLatitude, maxLongitude"),
                new("skipUnpopulated", ParameterKind.Boolean, "leave out block groups without population") { Default = true },
                new("contiguousOnly", ParameterKind.Boolean, "only the 48 contiguous states and DC") { Default = false },
            ],
            Outputs = [new("dataset", T.Points, "population-weighted points in planar km"), new("count", T.Integer, "points")],
            Execute = async c =>
            {
                var request = new QueryCensusRequest
                {
                    DatasetId = c.InputString("dataset"),
                    SkipUnpopulated = c.Parameter<bool>("skipUnpopulated"),
                    ContiguousOnly = c.Parameter<bool>("contiguousOnly"),
                };
                request.States.AddRange(c.Strings("states"));
                request.Counties.AddRange(c.Strings("counties"));
                if (c.Step.Parameters.GetValueOrDefault("boundingBox") is JsonArray box)
                {
                    request.BoundingBox = box.Count == 4
                        ? new BoundingBox { MinLatitude = N(box[0]), MinLongitude = N(box[1]), MaxLatitude = N(box[2]), MaxLongitude = N(box[3]) }
                        : throw new StepFailedException("boundingBox needs four numbers: minLatitude, minLongitude, maxLatitude, maxLongitude.");
                }

                var info = await c.CallAsync("census", "Query", request, (ch, r, o) => new CensusClient(ch).QueryAsync(r, o));
                return Outcome(("dataset", info.DatasetId), ("count", info.Count));
            },
        };

        yield return new OperationSpec
        {
            Service = "chem",
            Name = "import",
            Summary = "Imports a compound file (ids, SMILES and the fingerprints shipped with it).",
            Parameters =
            [
                new("source", ParameterKind.String, "the compound file") { Required = true, Allowed = [.. CompoundCatalog.Sources.Select(s => s.Name)] },
                new("limit", ParameterKind.Integer, "import only the first N compounds (0 = all)") { Default = 0, Minimum = 0 },
            ],
            Outputs = [new("dataset", T.Compounds, "the compounds"), new("count", T.Integer, "compounds")],
            Execute = async c =>
            {
                var info = await c.CallAsync("chem", "Import", new ImportCompoundsRequest { Source = c.Parameter<string>("source"), Limit = (int)c.Parameter<long>("limit") }, (ch, r, o) => new ChemClient(ch).ImportAsync(r, o));
                return Outcome(("dataset", info.DatasetId), ("count", info.Count));
            },
        };

        yield return new OperationSpec
        {
            Service = "chem",
            Name = "fingerprints",
            Summary = "The binary fingerprint dataset of a compound set, of one named type.",
            Inputs = [new("dataset", T.Compounds, true, "imported compounds")],
            Parameters = [new("type", ParameterKind.String, "the fingerprint type") { Default = FingerprintTypeDefault, Allowed = [.. CompoundCatalog.Types.Select(t => t.Name)] }],
            Outputs = [new("dataset", T.Fingerprints, "one fingerprint per compound"), new("count", T.Integer, "fingerprints"), new("bits", T.Integer, "bits per fingerprint")],
            Execute = async c =>
            {
                var info = await c.CallAsync("chem", "Fingerprints", new FingerprintRequest { DatasetId = c.InputString("dataset"), FingerprintType = c.Parameter<string>("type") }, (ch, r, o) => new ChemClient(ch).FingerprintsAsync(r, o));
                return Outcome(("dataset", info.DatasetId), ("count", info.Count), ("bits", info.Bits));
            },
        };

        yield return Annealing("annealing", "cluster", T.Points, "Deterministic-annealing clustering of weighted points.",
            (ch, o, r) => new AnnealingClient(ch).StartAsync(r, o), (ch, r, o) => new AnnealingClient(ch).GetResultAsync(r, o));
        yield return Annealing("fingerprints", "annealing", T.Fingerprints, "Deterministic-annealing clustering of binary fingerprints.",
            (ch, o, r) => new FingerprintsClient(ch).StartAnnealingAsync(r, o), (ch, r, o) => new FingerprintsClient(ch).GetAnnealingResultAsync(r, o));

        yield return new OperationSpec
        {
            Service = "kmeans",
            Name = "cluster",
            Summary = "Weighted k-means (k-means++ seeding, Lloyd iterations, restarts).",
            Inputs = [new("dataset", T.Points, true, "weighted points")],
            Parameters =
            [
                new("clusters", ParameterKind.Integer, "K") { Required = true, Minimum = 1 },
                new("restarts", ParameterKind.Integer, "k-means++ restarts, the best kept") { Minimum = 1, Maximum = 100 },
                new("maxIterations", ParameterKind.Integer, "Lloyd iterations per restart") { Minimum = 1, Maximum = 10_000 },
                new("tolerance", ParameterKind.Number, "relative change of inertia that ends a restart") { Minimum = 0 },
                new("seed", ParameterKind.Integer, "random seed"),
            ],
            Outputs = [new("job", T.Clustering, "the clustering job (assignments)"), new("clusters", T.Integer, "K"), new("inertia", T.Number, "weighted inertia"), new("table", T.Table, "one row per cluster")],
            Artifacts = [ArtifactFormats.Assignments],
            Execute = async c =>
            {
                var request = new StartKMeansRequest { DatasetId = c.InputString("dataset"), Clusters = (int)c.Parameter<long>("clusters") };
                if (c.Optional<long>("restarts") is { } restarts)
                {
                    request.Restarts = (int)restarts;
                }

                if (c.Optional<long>("maxIterations") is { } iterations)
                {
                    request.MaxIterations = (int)iterations;
                }

                if (c.Optional<double>("tolerance") is { } tolerance)
                {
                    request.Tolerance = tolerance;
                }

                if (c.Optional<long>("seed") is { } seed)
                {
                    request.Seed = (int)seed;
                }

                var job = await c.RunJobAsync("kmeans", "Start", (ch, o) => new KMeansClient(ch).StartAsync(request, o), request);
                var result = await c.CallAsync("kmeans", "GetResult", new JobRef { JobId = job.JobId }, (ch, r, o) => new KMeansClient(ch).GetResultAsync(r, o));
                return Outcome(job, ("job", job.ToJson()), ("clusters", result.Clusters), ("inertia", result.Inertia),
                    ("table", ClusterTable(result.Clusters, result.Dimension, result.Centres, result.ClusterWeights, result.ClusterSizes)));
            },
        };

        yield return new OperationSpec
        {
            Service = "fingerprints",
            Name = "butina",
            Summary = "Taylor–Butina clustering by Tanimoto distance; the medoids of the largest clusters.",
            Inputs = [new("dataset", T.Fingerprints, true, "binary fingerprints")],
            Parameters =
            [
                new("cutoff", ParameterKind.Number, "Tanimoto distance cut-off") { Minimum = 0, Maximum = 1 },
                new("medoids", ParameterKind.Integer, "how many medoids (of the largest clusters) to output") { Default = 500, Minimum = 1, Maximum = 10_000 },
                new("tableRows", ParameterKind.Integer, "rows of the cluster table (largest clusters)") { Default = 20, Minimum = 0, Maximum = 1000 },
            ],
            Outputs =
            [
                new("job", T.Butina, "the Butina job"), new("clusters", T.Integer, "clusters, singletons included"), new("singletons", T.Integer, "clusters of one"),
                new("medoids", T.Indices, "medoid of each of the largest clusters"), new("sizes", T.Numbers, "their sizes"), new("table", T.Table, "the largest clusters"),
            ],
            Artifacts = [ArtifactFormats.Assignments],
            Execute = async c =>
            {
                var request = new StartButinaRequest { DatasetId = c.InputString("dataset") };
                if (c.Optional<double>("cutoff") is { } cutoff)
                {
                    request.Cutoff = cutoff;
                }

                var job = await c.RunJobAsync("fingerprints", "StartButina", (ch, o) => new FingerprintsClient(ch).StartButinaAsync(request, o), request);
                var result = await c.CallAsync("fingerprints", "GetButinaResult", new JobRef { JobId = job.JobId }, (ch, r, o) => new FingerprintsClient(ch).GetButinaResultAsync(r, o));
                var largest = result.Cluster.Select((cluster, index) => (cluster, index)).OrderByDescending(x => x.cluster.Size).ThenBy(x => x.index).ToList();
                var medoids = largest.Take((int)c.Parameter<long>("medoids")).ToList();
                var table = new JsonArray([.. largest.Take((int)c.Parameter<long>("tableRows")).Select(x => (JsonNode)new JsonObject
                {
                    ["cluster"] = x.index,
                    ["size"] = x.cluster.Size,
                    ["medoid"] = x.cluster.Medoid,
                    ["meanSimilarity"] = Math.Round(x.cluster.MeanSimilarity, 4),
                })]);
                return Outcome(job, ("job", job.ToJson()), ("clusters", result.Clusters), ("singletons", result.Singletons),
                    ("medoids", new JsonArray([.. medoids.Select(x => (JsonNode)x.cluster.Medoid)])),
                    ("sizes", new JsonArray([.. medoids.Select(x => (JsonNode)x.cluster.Size)])),
                    ("table", table));
            },
        };

        yield return new OperationSpec
        {
            Service = "fingerprints",
            Name = "search",
            Summary = "The k compounds most similar (Tanimoto) to a query fingerprint, pruned through a Butina clustering when given.",
            Inputs = [new("dataset", T.Fingerprints, true, "the fingerprints searched"), new("butina", T.Butina, false, "a Butina clustering of that dataset, to prune the search")],
            Parameters =
            [
                new("queryHex", ParameterKind.String, "the query fingerprint in the data files' hex encoding") { Required = true },
                new("fingerprintType", ParameterKind.String, "the query's fingerprint type (the dataset's)") { Default = FingerprintTypeDefault },
                new("k", ParameterKind.Integer, "hits") { Default = 10, Minimum = 1, Maximum = 1000 },
            ],
            Outputs = [new("table", T.Table, "the hits, most similar first"), new("distancesComputed", T.Integer, "Tanimoto distances the search computed")],
            Execute = async c =>
            {
                var request = new SearchRequest
                {
                    DatasetId = c.InputString("dataset"),
                    QueryHex = c.Parameter<string>("queryHex"),
                    FingerprintType = c.Parameter<string>("fingerprintType"),
                    K = (int)c.Parameter<long>("k"),
                };
                if (c.HasInput("butina"))
                {
                    request.ButinaJobId = c.InputJob("butina").JobId;
                }

                var response = await c.CallAsync("fingerprints", "Search", request, (ch, r, o) => new FingerprintsClient(ch).SearchAsync(r, o));
                var table = new JsonArray([.. response.Hits.Select((h, rank) => (JsonNode)new JsonObject
                {
                    ["rank"] = rank + 1,
                    ["index"] = h.Index,
                    ["compound"] = h.Label,
                    ["similarity"] = Math.Round(h.Similarity, 4),
                })]);
                return Outcome(("table", table), ("distancesComputed", response.DistancesComputed));
            },
        };

        yield return new OperationSpec
        {
            Service = "mds",
            Name = "embed",
            Summary = "Weighted SMACOF embedding of a dataset's items (all, or the ones listed) in 2 or 3 dimensions.",
            Inputs =
            [
                new("dataset", $"{T.Points}|{T.Fingerprints}", true, "the items' dataset (Euclidean or Tanimoto distances)"),
                new("items", T.Indices, false, "which items (e.g. cluster medoids); all when absent"),
                new("weights", T.Numbers, false, "a weight per item (e.g. cluster sizes)"),
            ],
            Parameters =
            [
                new("dimensions", ParameterKind.Integer, "2 or 3") { Default = 2, Minimum = 2, Maximum = 3 },
                new("maxIterations", ParameterKind.Integer, "SMACOF iterations") { Minimum = 1, Maximum = 100_000 },
                new("tolerance", ParameterKind.Number, "relative change of stress that ends the iterations") { Minimum = 0 },
            ],
            Outputs = [new("job", T.Embedding, "the embedding job (coordinates)"), new("stress", T.Number, "normalised stress"), new("items", T.Integer, "items embedded")],
            Artifacts = ["coordinates"],
            Execute = async c =>
            {
                var request = new StartEmbeddingRequest { DatasetId = c.InputString("dataset"), Dimensions = (int)c.Parameter<long>("dimensions") };
                if (c.HasInput("items"))
                {
                    request.Items.AddRange(c.Input("items").AsArray().Select(x => x.Deserialize<int>()));
                }

                if (c.HasInput("weights"))
                {
                    request.ItemWeights.AddRange(c.Input("weights").AsArray().Select(N));
                }

                if (c.Optional<long>("maxIterations") is { } iterations)
                {
                    request.MaxIterations = (int)iterations;
                }

                if (c.Optional<double>("tolerance") is { } tolerance)
                {
                    request.Tolerance = tolerance;
                }

                var job = await c.RunJobAsync("mds", "Start", (ch, o) => new MdsClient(ch).StartAsync(request, o), request);
                var result = await c.CallAsync("mds", "GetResult", new JobRef { JobId = job.JobId }, (ch, r, o) => new MdsClient(ch).GetResultAsync(r, o));
                return Outcome(job, ("job", job.ToJson()), ("stress", result.NormalisedStress), ("items", result.Items));
            },
        };

        yield return new OperationSpec
        {
            Service = "render",
            Name = "census-map",
            Summary = "A map of clustered census points (SVG, PNG) and GeoJSON of the clusters with their population.",
            Inputs = [new("points", T.Points, true, "the census query's points"), new("clustering", T.Clustering, true, "their clustering (annealing or k-means)")],
            Parameters =
            [
                new("width", ParameterKind.Integer, "pixels") { Default = 1200, Minimum = 200, Maximum = 4096 },
                new("height", ParameterKind.Integer, "pixels") { Default = 900, Minimum = 200, Maximum = 4096 },
                new("title", ParameterKind.String, "the map's title") { Default = "" },
                new("counties", ParameterKind.Boolean, "draw county outlines") { Default = false },
            ],
            Outputs = [new("job", T.Rendering, "the rendering job (its files)")],
            Artifacts = ["map.svg", "map.png", "clusters.geojson"],
            Execute = async c =>
            {
                var clustering = c.InputJob("clustering");
                var request = new RenderCensusMapRequest
                {
                    PointsDatasetId = c.InputString("points"),
                    ClusteringJobId = clustering.JobId,
                    ClusteringService = clustering.Service,
                    Width = (int)c.Parameter<long>("width"),
                    Height = (int)c.Parameter<long>("height"),
                    Title = c.Parameter<string>("title"),
                    Counties = c.Parameter<bool>("counties"),
                };
                var job = await c.RunJobAsync("render", "StartCensusMap", (ch, o) => new RenderClient(ch).StartCensusMapAsync(request, o), request);
                return Outcome(job, ("job", job.ToJson()));
            },
        };

        yield return new OperationSpec
        {
            Service = "render",
            Name = "scatter",
            Summary = "A scatter plot (SVG, PNG) of an embedding, coloured by the cluster of each item when a clustering is given.",
            Inputs = [new("embedding", T.Embedding, true, "the MDS embedding"), new("clustering", T.Clustering, false, "a clustering of the embedding's dataset, to colour the items")],
            Parameters =
            [
                new("width", ParameterKind.Integer, "pixels") { Default = 1000, Minimum = 200, Maximum = 4096 },
                new("height", ParameterKind.Integer, "pixels") { Default = 800, Minimum = 200, Maximum = 4096 },
                new("title", ParameterKind.String, "the plot's title") { Default = "" },
            ],
            Outputs = [new("job", T.Rendering, "the rendering job (its files)")],
            Artifacts = ["scatter.svg", "scatter.png"],
            Execute = async c =>
            {
                var embedding = c.InputJob("embedding");
                var request = new RenderScatterRequest
                {
                    EmbeddingJobId = embedding.JobId,
                    Width = (int)c.Parameter<long>("width"),
                    Height = (int)c.Parameter<long>("height"),
                    Title = c.Parameter<string>("title"),
                };
                if (c.HasInput("clustering"))
                {
                    // The gateway's part of the mashup: each embedded item takes the cluster its dataset point was given.
                    var embedded = await c.CallAsync("mds", "GetResult", new JobRef { JobId = embedding.JobId }, (ch, r, o) => new MdsClient(ch).GetResultAsync(r, o));
                    var (data, _) = await c.DownloadAsync(c.InputJob("clustering"), ArtifactFormats.Assignments);
                    var assignments = ArtifactFormats.ReadInt32s(data);
                    request.Clusters.AddRange(embedded.ItemIndices.Count > 0
                        ? embedded.ItemIndices.Select(i => assignments[i])
                        : assignments.Take(embedded.Items));
                }

                var job = await c.RunJobAsync("render", "StartScatter", (ch, o) => new RenderClient(ch).StartScatterAsync(request, o), request);
                return Outcome(job, ("job", job.ToJson()));
            },
        };
    }

    private const string FingerprintTypeDefault = "rdkit-ecfp4-1024";

    private static OperationSpec Annealing(string service, string name, string inputType, string summary,
        Func<Grpc.Net.Client.GrpcChannel, Grpc.Core.CallOptions, StartAnnealingRequest, Grpc.Core.AsyncUnaryCall<JobInfo>> start,
        Func<Grpc.Net.Client.GrpcChannel, JobRef, Grpc.Core.CallOptions, Grpc.Core.AsyncUnaryCall<AnnealingResult>> result) => new()
        {
            Service = service,
            Name = name,
            Summary = summary,
            Inputs = [new("dataset", inputType, true, inputType == T.Points ? "weighted points" : "binary fingerprints")],
            Parameters =
            [
                new("maxClusters", ParameterKind.Integer, "Kmax: clusters split until this many") { Required = true, Minimum = 1 },
                new("coolingFactor", ParameterKind.Number, "temperature multiplier per step") { Minimum = 0.5, Maximum = 0.999 },
                new("startTemperature", ParameterKind.Number, "start temperature (default: above the first critical one)") { Minimum = 0 },
                new("minTemperature", ParameterKind.Number, "the temperature that ends annealing") { Minimum = 0 },
                new("maxIterationsPerTemperature", ParameterKind.Integer, "EM iterations per temperature") { Minimum = 1, Maximum = 100_000 },
                new("tolerance", ParameterKind.Number, "convergence tolerance at one temperature") { Minimum = 0 },
            ],
            Outputs =
            [
                new("job", T.Clustering, "the clustering job (assignments)"), new("clusters", T.Integer, "clusters found"),
                new("weightedCost", T.Number, "weighted squared-distance cost of the final assignment"), new("iterations", T.Integer, "EM iterations in all"),
                new("table", T.Table, "one row per cluster"),
            ],
            Artifacts = [ArtifactFormats.Assignments],
            Execute = async c =>
            {
                var request = new StartAnnealingRequest { DatasetId = c.InputString("dataset"), MaxClusters = (int)c.Parameter<long>("maxClusters") };
                if (c.Optional<double>("coolingFactor") is { } cooling)
                {
                    request.CoolingFactor = cooling;
                }

                if (c.Optional<double>("startTemperature") is { } startTemperature)
                {
                    request.StartTemperature = startTemperature;
                }

                if (c.Optional<double>("minTemperature") is { } minTemperature)
                {
                    request.MinTemperature = minTemperature;
                }

                if (c.Optional<long>("maxIterationsPerTemperature") is { } iterations)
                {
                    request.MaxIterationsPerTemperature = (int)iterations;
                }

                if (c.Optional<double>("tolerance") is { } tolerance)
                {
                    request.Tolerance = tolerance;
                }

                var job = await c.RunJobAsync(service, service == "annealing" ? "Start" : "StartAnnealing", (ch, o) => start(ch, o, request), request);
                var r = await c.CallAsync(service, service == "annealing" ? "GetResult" : "GetAnnealingResult", new JobRef { JobId = job.JobId }, result);
                return Outcome(job, ("job", job.ToJson()), ("clusters", r.Clusters), ("weightedCost", r.WeightedCost), ("iterations", r.Iterations),
                    ("table", ClusterTable(r.Clusters, r.Dimension, r.Centres, r.ClusterWeights, r.ClusterSizes)));
            },
        };

    /// <summary>One row per cluster: size, weight and (for 2-D data such as planar km) the centre.</summary>
    private static JsonArray ClusterTable(int clusters, int dimension, Google.Protobuf.Collections.RepeatedField<double> centres, Google.Protobuf.Collections.RepeatedField<double> weights, Google.Protobuf.Collections.RepeatedField<int> sizes) =>
        new([.. Enumerable.Range(0, clusters).Select(k =>
        {
            var row = new JsonObject { ["cluster"] = k, ["size"] = sizes[k], ["weight"] = Math.Round(weights[k], 3) };
            if (dimension == 2)
            {
                row["x"] = Math.Round(centres[2 * k], 3);
                row["y"] = Math.Round(centres[2 * k + 1], 3);
            }

            return (JsonNode)row;
        })]);

    private static double N(JsonNode? node) => node.Deserialize<double>();

    private static StepOutcome Outcome(params (string Name, JsonNode? Value)[] outputs) => Outcome(null, outputs);

    private static StepOutcome Outcome(JobAddress? job, params (string Name, JsonNode? Value)[] outputs) =>
        new(outputs.ToDictionary(o => o.Name, o => o.Value, StringComparer.Ordinal), job);
}
