using Salsa.Contracts.Census;
using Salsa.Contracts.Clients;
using Salsa.Contracts.Operations;
using Salsa.Hosting;
using CensusSource = Salsa.DataFiles.CensusSource; // the contract has a PlaceColumns of its own
using T = Salsa.Contracts.Operations.ValueTypes;

namespace Salsa.Operations;

/// <summary>The census service's workflow operations: import a shipped file, query it into weighted points.</summary>
public static class CensusOperations
{
    public static IReadOnlyList<OperationSpec> Describe(ServiceLimits limits) =>
    [
        new()
        {
            Service = ServiceNames.Census,
            Name = "import",
            Summary = "Imports places into the store (once; later imports reuse it): a shipped census block-group file (source), your own place file (file: a path on the service's machine or an https URL; CSV or GeoJSON points, plain or gzip), or a place dataset you uploaded (dataset). Give exactly one of the three.",
            Parameters =
            [
                new("source", ParameterKind.String, "a shipped census file") { Allowed = [.. CensusSource.Shipped.Select(s => s.Name)] },
                new("file", ParameterKind.String, "a place file: a path on the census service's machine, or an https URL it fetches"),
                new("dataset", ParameterKind.String, "the id of a census dataset already stored (POST /api/census/uploads)"),
                new("name", ParameterKind.String, "the dataset's name for a file (default: the file's name)"),
                new("format", ParameterKind.String, "the file's layout") { Allowed = ["auto", "csv", "geojson"] },
                new("idColumn", ParameterKind.String, "the file's id column (default: detected: id, geoid, name…)"),
                new("latitudeColumn", ParameterKind.String, "the latitude column (default: detected: latitude, lat, y)"),
                new("longitudeColumn", ParameterKind.String, "the longitude column (default: detected: longitude, lon, lng, x)"),
                new("weightColumn", ParameterKind.String, "the weight column (default: detected: weight, population, pop…; none: every place weighs 1)"),
                new("groupColumns", ParameterKind.StringList, "grouping columns a query can select by (default: detected: country, state, county, region…)"),
            ],
            Outputs = [new("dataset", T.CensusDataset, "the imported places"), new("count", T.Integer, "places")],
            Execute = async c =>
            {
                var census = new CensusClient(await c.InvokerAsync(ServiceNames.Census));
                var request = new ImportCensusRequest
                {
                    Source = c.TextOrEmpty("source"),
                    Location = c.TextOrEmpty("file"),
                    DatasetId = c.TextOrEmpty("dataset"),
                    Places = new UploadPlacesHeader
                    {
                        Name = c.TextOrEmpty("name"),
                        Format = c.TextOrEmpty("format"),
                        Columns = new PlaceColumns
                        {
                            Id = c.TextOrEmpty("idColumn"),
                            Latitude = c.TextOrEmpty("latitudeColumn"),
                            Longitude = c.TextOrEmpty("longitudeColumn"),
                            Weight = c.TextOrEmpty("weightColumn"),
                        },
                    },
                };
                request.Places.Columns.Groups.AddRange(c.Strings("groupColumns"));
                var info = await census.ImportAsync(request, c.CallOptions);
                return StepOutcome.Of(("dataset", info.DatasetId), ("count", info.Count));
            },
        },
        new()
        {
            Service = ServiceNames.Census,
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
                new("groups", ParameterKind.StringList, "values of grouping columns (an upload's own, e.g. a country; or state and county codes)"),
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
                request.Groups.AddRange(c.Strings("groups"));
                if (c.HasParameter("boundingBox"))
                {
                    var box = c.Parameter<double[]>("boundingBox");
                    request.BoundingBox = box.Length == 4
                        ? new BoundingBox { MinLatitude = box[0], MinLongitude = box[1], MaxLatitude = box[2], MaxLongitude = box[3] }
                        : throw new StepFailedException("boundingBox needs four numbers: minLatitude, minLongitude, maxLatitude, maxLongitude.");
                }

                var census = new CensusClient(await c.InvokerAsync(ServiceNames.Census));
                var info = await census.QueryAsync(request, c.CallOptions);
                return StepOutcome.Of(("dataset", info.DatasetId), ("count", info.Count));
            },
        },
    ];
}
