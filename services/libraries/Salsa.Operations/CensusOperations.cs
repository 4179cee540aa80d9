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
    public static IReadOnlyList<OperationSpec> Describe(ServiceLimits limits) => [Import(), Query(limits)];

    private static OperationSpec Import()
    {
        ParameterSpec source = new("source", ParameterKind.String, "a shipped census file") { Allowed = [.. CensusSource.Shipped.Select(s => s.Name)] };
        ParameterSpec file = new("file", ParameterKind.String, "a place file: a path on the census service's machine, or an https URL it fetches; written relative in a workflow file, from that file's folder") { IsPath = true };
        ParameterSpec dataset = new("dataset", ParameterKind.String, "the id of a census dataset already stored (POST /api/census/uploads)");
        ParameterSpec name = new("name", ParameterKind.String, "the dataset's name for a file (default: the file's name)");
        ParameterSpec format = new("format", ParameterKind.String, "the file's layout") { Allowed = ["auto", "csv", "geojson"] };
        ParameterSpec idColumn = new("idColumn", ParameterKind.String, "the file's id column (default: detected: id, geoid, name…)");
        ParameterSpec latitudeColumn = new("latitudeColumn", ParameterKind.String, "the latitude column (default: detected: latitude, lat, y)");
        ParameterSpec longitudeColumn = new("longitudeColumn", ParameterKind.String, "the longitude column (default: detected: longitude, lon, lng, x)");
        ParameterSpec weightColumn = new("weightColumn", ParameterKind.String, "the weight column (default: detected: weight, population, pop…; none: every place weighs 1)");
        ParameterSpec groupColumns = new("groupColumns", ParameterKind.StringList, "grouping columns a query can select by (default: detected: country, state, county, region…)");
        return new()
        {
            Service = ServiceNames.Census,
            Name = "import",
            Summary = "Imports places into the store (once; later imports reuse it): a shipped census block-group file (source), your own place file (file: a path on the service's machine or an https URL; CSV or GeoJSON points, plain or gzip), or a place dataset you uploaded (dataset). Give exactly one of the three.",
            Parameters = [source, file, dataset, name, format, idColumn, latitudeColumn, longitudeColumn, weightColumn, groupColumns],
            Outputs = [new("dataset", T.CensusDataset, "the imported places"), new("count", T.Integer, "places")],
            Execute = async c =>
            {
                var census = new CensusClient(await c.InvokerAsync(ServiceNames.Census));
                var request = new ImportCensusRequest
                {
                    Source = c.TextOrEmpty(source),
                    Location = c.TextOrEmpty(file),
                    DatasetId = c.TextOrEmpty(dataset),
                    Places = new UploadPlacesHeader
                    {
                        Name = c.TextOrEmpty(name),
                        Format = c.TextOrEmpty(format),
                        Columns = new PlaceColumns
                        {
                            Id = c.TextOrEmpty(idColumn),
                            Latitude = c.TextOrEmpty(latitudeColumn),
                            Longitude = c.TextOrEmpty(longitudeColumn),
                            Weight = c.TextOrEmpty(weightColumn),
                        },
                    },
                };
                request.Places.Columns.Groups.AddRange(c.Strings(groupColumns));
                var info = await census.ImportAsync(request, c.CallOptions);
                return StepOutcome.Of(("dataset", info.DatasetId), ("count", info.Count));
            },
        };
    }

    private static OperationSpec Query(ServiceLimits limits)
    {
        InputSpec blockGroups = new("dataset", T.CensusDataset, true, "imported block groups");
        ParameterSpec states = new("states", ParameterKind.StringList, $"two-digit state FIPS codes (with counties, at most {limits.MaxQueryCodes:N0} codes)");
        ParameterSpec counties = new("counties", ParameterKind.StringList, "five-digit county FIPS codes");
        ParameterSpec boundingBox = new("boundingBox", ParameterKind.NumberList, "minLatitude, minLongitude, maxLatitude, maxLongitude");
        ParameterSpec skipUnpopulated = new("skipUnpopulated", ParameterKind.Boolean, "leave out block groups without population") { Default = true };
        ParameterSpec contiguousOnly = new("contiguousOnly", ParameterKind.Boolean, "only the 48 contiguous states and DC") { Default = false };
        ParameterSpec groups = new("groups", ParameterKind.StringList, "values of grouping columns (an upload's own, e.g. a country; or state and county codes)");
        return new()
        {
            Service = ServiceNames.Census,
            Name = "query",
            Summary = "Selects block groups (states, counties, a bounding box) and projects them to planar km, weighted by population.",
            Inputs = [blockGroups],
            Parameters = [states, counties, boundingBox, skipUnpopulated, contiguousOnly, groups],
            Outputs = [new("dataset", T.Points, "population-weighted points in planar km"), new("count", T.Integer, "points")],
            Execute = async c =>
            {
                var request = new QueryCensusRequest
                {
                    DatasetId = c.InputString(blockGroups),
                    SkipUnpopulated = c.Get<bool>(skipUnpopulated),
                    ContiguousOnly = c.Get<bool>(contiguousOnly),
                };
                request.States.AddRange(c.Strings(states));
                request.Counties.AddRange(c.Strings(counties));
                request.Groups.AddRange(c.Strings(groups));
                if (c.Has(boundingBox))
                {
                    var box = c.Get<double[]>(boundingBox);
                    request.BoundingBox = box.Length == 4
                        ? new BoundingBox { MinLatitude = box[0], MinLongitude = box[1], MaxLatitude = box[2], MaxLongitude = box[3] }
                        : throw new StepFailedException($"{boundingBox.Name} needs four numbers: minLatitude, minLongitude, maxLatitude, maxLongitude.");
                }

                var census = new CensusClient(await c.InvokerAsync(ServiceNames.Census));
                var info = await census.QueryAsync(request, c.CallOptions);
                return StepOutcome.Of(("dataset", info.DatasetId), ("count", info.Count));
            },
        };
    }
}
