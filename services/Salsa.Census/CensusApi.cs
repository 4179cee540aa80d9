using Microsoft.AspNetCore.Http.HttpResults;
using Salsa.Hosting.Datasets;

namespace Salsa.Census;

public sealed record CensusImportRequest(string Source);

/// <summary>REST: list sources, import one, query an import into a projected, population-weighted point set.</summary>
public static class CensusApi
{
    public static RouteGroupBuilder MapCensusApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/api/census").WithTags("Census");

        group.MapGet("/sources", () => TypedResults.Ok(CensusCatalog.Sources.Select(s => new { s.Name, s.Description })))
            .WithName("ListCensusSources").WithSummary("The census files this service can import.");

        group.MapPost("/imports", async Task<Ok<DatasetView>> (CensusCatalog census, CensusImportRequest request, CancellationToken cancellationToken) =>
            TypedResults.Ok(DatasetCatalog.ToView(await census.ImportAsync(request.Source, cancellationToken))))
            .WithName("ImportCensus")
            .WithSummary("Imports a census file (us, indiana, indiana-1000) as a census dataset: latitude/longitude, population, GEOID. Importing the same file again returns the same dataset.");

        group.MapPost("/queries", async Task<Ok<DatasetView>> (CensusCatalog census, CensusQuery query, CancellationToken cancellationToken) =>
            TypedResults.Ok(DatasetCatalog.ToView(await census.QueryAsync(query, cancellationToken))))
            .WithName("QueryCensus")
            .WithSummary("Selects block groups by state, county or bounding box into a dense 2-D dataset in km (equirectangular about the selection's population centre, recorded in its metadata), weights = population, labels = GEOIDs.");

        return group;
    }
}
