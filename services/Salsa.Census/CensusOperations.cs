using Salsa.Contracts.Census;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Operations;
using T = Salsa.Contracts.Operations.ValueTypes;

namespace Salsa.Census;

/// <summary>The census service's workflow operations: import a shipped file, query it into weighted points.</summary>
internal static class CensusOperations
{
    public static IReadOnlyList<OperationSpec> Describe(Hosting.ServiceLimits limits) =>
    [
        new()
        {
            Service = CensusService.Name,
            Name = "import",
            Summary = "Imports a census block-group file into the store (once; later imports reuse it).",
            Parameters = [new("source", ParameterKind.String, "the census file") { Required = true, Allowed = [.. CensusCatalog.Sources.Select(s => s.Name)] }],
            Outputs = [new("dataset", T.CensusDataset, "the imported block groups"), new("count", T.Integer, "block groups")],
            Execute = async c =>
            {
                var census = new CensusClient(await c.InvokerAsync(CensusService.Name));
                var info = await census.ImportAsync(new ImportCensusRequest { Source = c.Parameter<string>("source") }, c.CallOptions);
                return StepOutcome.Of(("dataset", info.DatasetId), ("count", info.Count));
            },
        },
        new()
        {
            Service = CensusService.Name,
            Name = "query",
            Summary = "Selects block groups (states, counties, a bounding box) and projects them to planar km, weighted by population.",
            Inputs = [new("dataset", T.CensusDataset, true, "imported block groups")],
            Parameters =
            [
                new("states", ParameterKind.StringList, $"two-digit state FIPS codes (with counties, at most {limits.MaxQueryCodes:N0} codes)"),
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
                if (c.HasParameter("boundingBox"))
                {
                    var box = c.Parameter<double[]>("boundingBox");
                    request.BoundingBox = box.Length == 4
                        ? new BoundingBox { MinLatitude = box[0], MinLongitude = box[1], MaxLatitude = box[2], MaxLongitude = box[3] }
                        : throw new StepFailedException("boundingBox needs four numbers: minLatitude, minLongitude, maxLatitude, maxLongitude.");
                }

                var census = new CensusClient(await c.InvokerAsync(CensusService.Name));
                var info = await census.QueryAsync(request, c.CallOptions);
                return StepOutcome.Of(("dataset", info.DatasetId), ("count", info.Count));
            },
        },
    ];
}
