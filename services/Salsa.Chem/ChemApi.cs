using Microsoft.AspNetCore.Http.HttpResults;
using Salsa.Hosting.Datasets;

namespace Salsa.Chem;

public sealed record CompoundImportRequest(string Source, int Limit = 0);

/// <summary>An upload's answer: the compounds dataset (its metadata names the fingerprint datasets), and what RDKit could not read.</summary>
public sealed record CompoundUploadView(DatasetView Dataset, int Imported, IReadOnlyList<RefusedCompound> Refused);

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

        group.MapPost("/uploads", async Task<Created<CompoundUploadView>> (CompoundCatalog chem, HttpRequest request, string name, string? format, string? fingerprints, CancellationToken cancellationToken) =>
        {
            CompoundUpload upload;
            if (request.HasFormContentType)
            {
                var form = await request.ReadFormAsync(cancellationToken);
                var file = form.Files.Count > 0 ? form.Files[0] : throw new ArgumentException("The form holds no file: send the compound file as its first file field.");
                await using var stream = file.OpenReadStream();
                upload = await chem.UploadAsync(stream, name, format, fingerprints, cancellationToken);
            }
            else
            {
                // Read off the connection first (the parse reads synchronously); Kestrel's request
                // size limit bounds the copy.
                await using var buffer = new FileStream(Path.GetTempFileName(), FileMode.Create, FileAccess.ReadWrite, FileShare.None, 1 << 16, FileOptions.DeleteOnClose | FileOptions.Asynchronous);
                await request.Body.CopyToAsync(buffer, cancellationToken);
                buffer.Position = 0;
                upload = await chem.UploadAsync(buffer, name, format, fingerprints, cancellationToken);
            }

            return TypedResults.Created($"/api/datasets/{upload.Compounds.Id}", new CompoundUploadView(DatasetCatalog.ToView(upload.Compounds), upload.Compounds.Count, upload.Refused));
        })
            .Accepts<string>("text/plain", "text/csv", "application/gzip", "multipart/form-data")
            .WithName("UploadCompounds")
            .WithSummary("Imports your own compound file — SMILES lines (`SMILES [id]`) or CSV with a `smiles` column (and `id` or `name`), plain or gzip, as the body or a multipart file — fingerprinted by RDKit (`fingerprints`: a comma-separated list of types, default all). Molecules RDKit cannot read are listed with their line and reason; the rest are imported. A malformed row, or a file RDKit reads nothing of, is 400 and stores nothing.");

        group.MapGet("/compounds/{id}/fingerprints/{type}", async Task<Ok<DatasetView>> (CompoundCatalog chem, string id, string type, CancellationToken cancellationToken) =>
            TypedResults.Ok(DatasetCatalog.ToView(await chem.FingerprintsAsync(DatasetCatalog.ParseId(id), type, cancellationToken))))
            .WithName("GetFingerprints")
            .WithSummary("The binary dataset of one fingerprint type of an imported compound set (labels = compound ids, weights 1).");

        return group;
    }
}
