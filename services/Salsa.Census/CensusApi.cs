using Microsoft.AspNetCore.Http.HttpResults;
using Salsa.DataFiles;
using Salsa.Hosting.Datasets;

namespace Salsa.Census;

/// <summary>
/// An import: a shipped <paramref name="Source"/>, or a user's place file at <paramref name="Location"/>
/// (a path on the service's machine or an https URL) read as <paramref name="Format"/> with these
/// <paramref name="Columns"/>, or a stored census dataset (<paramref name="DatasetId"/>).
/// </summary>
public sealed record CensusImportRequest(string? Source, string? Location = null, string? Name = null, string? Format = null, PlaceColumns? Columns = null, Guid? DatasetId = null);

/// <summary>REST: list sources, import one (or a user's file), upload places, query an import into a projected, weighted point set.</summary>
public static class CensusApi
{
    public static RouteGroupBuilder MapCensusApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/api/census").WithTags("Census");

        group.MapGet("/sources", () => TypedResults.Ok(CensusSource.Shipped.Select(s => new { s.Name, s.Description })))
            .WithName("ListCensusSources").WithSummary("The census files this service can import.");

        group.MapPost("/imports", async Task<Ok<DatasetView>> (CensusCatalog census, CensusImportRequest request, CancellationToken cancellationToken) =>
            TypedResults.Ok(DatasetCatalog.ToView(await census.ImportAsync(request, cancellationToken))))
            .WithName("ImportCensus")
            .WithSummary("Imports a census file (source: us, indiana, indiana-1000) as a census dataset: latitude/longitude, population, GEOID — or a place file at `location` (a path on the service's machine, or an https URL it fetches), or checks a stored census dataset (`datasetId`). Importing the same file again returns the same dataset.");

        group.MapPost("/uploads", async Task<Created<DatasetView>> (CensusCatalog census, UserFiles files, HttpRequest request, string name, string? format, string? id, string? latitude, string? longitude, string? weight, string? groups, CancellationToken cancellationToken) =>
        {
            await using var file = await files.FromRequestAsync(request, cancellationToken);
            var columns = new PlaceColumns { Id = id, Latitude = latitude, Longitude = longitude, Weight = weight, Groups = Split(groups) };
            var info = await census.UploadAsync(file, files.Sent(name), format, columns, cancellationToken);
            return TypedResults.Created($"/api/datasets/{info.Id}", DatasetCatalog.ToView(info));
        })
            .Accepts<string>(UserFiles.UploadMediaTypes[0], UserFiles.UploadMediaTypes[1..])
            .TakesFile()
            .WithName("UploadPlaces")
            .WithSummary("Imports your own places as a census dataset — CSV (a header, then rows; columns id, latitude, longitude, weight and grouping columns such as country or state, named by the query or detected) or a GeoJSON FeatureCollection of points, plain or gzip, as the body or a multipart file. A bad row is 400 with its line, and nothing is stored.");

        group.MapPost("/queries", async Task<Ok<DatasetView>> (CensusCatalog census, CensusQuery query, CancellationToken cancellationToken) =>
            TypedResults.Ok(DatasetCatalog.ToView(await census.QueryAsync(query, cancellationToken))))
            .WithName("QueryCensus")
            .WithSummary("Selects places by state, county, group or bounding box into a dense 2-D dataset in km (equirectangular about the selection's weighted centre, recorded in its metadata), weights = population, labels = ids.");

        return group;
    }

    private static string[] Split(string? list) => list?.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries) ?? [];
}
