using Microsoft.AspNetCore.Http.HttpResults;
using Salsa.Hosting.Datasets;

namespace Salsa.Chem;

public sealed record CompoundImportRequest(string Source, int Limit = 0);

/// <summary>REST: compound sources and fingerprint types, import, fingerprint datasets.</summary>
public static class ChemApi
{
    public static RouteGroupBuilder MapChemApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/api/chem").WithTags("Chem");

        group.MapGet("/sources", () => TypedResults.Ok(CompoundCatalog.Sources.Select(s => new { s.Name, s.Description })))
            .WithName("ListCompoundSources").WithSummary("The compound files this service can import.");

        group.MapGet("/fingerprint-types", () => TypedResults.Ok(CompoundCatalog.Types))
            .WithName("ListFingerprintTypes").WithSummary("Named fingerprint types and their sizes.");

        group.MapPost("/imports", async Task<Ok<DatasetView>> (CompoundCatalog chem, CompoundImportRequest request, CancellationToken cancellationToken) =>
            TypedResults.Ok(DatasetCatalog.ToView(await chem.ImportAsync(request.Source, request.Limit, cancellationToken))))
            .WithName("ImportCompounds")
            .WithSummary("Imports a compound file (40k, all, fixture; optionally only the first `limit`): a compounds dataset (ids, SMILES) whose metadata names a fingerprint dataset per shipped type. Importing again returns the same datasets.");

        group.MapGet("/compounds/{id}/fingerprints/{type}", async Task<Ok<DatasetView>> (CompoundCatalog chem, string id, string type, CancellationToken cancellationToken) =>
            TypedResults.Ok(DatasetCatalog.ToView(await chem.FingerprintsAsync(DatasetCatalog.ParseId(id), type, cancellationToken))))
            .WithName("GetFingerprints")
            .WithSummary("The binary dataset of one fingerprint type of an imported compound set (labels = compound ids, weights 1).");

        return group;
    }
}
