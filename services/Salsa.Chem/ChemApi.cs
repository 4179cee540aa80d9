using Microsoft.AspNetCore.Http.HttpResults;
using Salsa.DataFiles;
using Salsa.Hosting.Datasets;

namespace Salsa.Chem;

/// <summary>
/// An import: a shipped <paramref name="Source"/> (optionally its first <paramref name="Limit"/>
/// compounds), or a user's compound file at <paramref name="Location"/> (a path on the service's
/// machine or an https URL) fingerprinted by RDKit, or a stored compounds dataset (<paramref name="DatasetId"/>).
/// </summary>
public sealed record CompoundImportRequest(string? Source, int Limit = 0, string? Location = null, string? Name = null, string? Format = null, string? Fingerprints = null, Guid? DatasetId = null);

/// <summary>An upload's answer: the compounds dataset (its metadata names the fingerprint datasets), and what RDKit could not read.</summary>
public sealed record CompoundUploadView(DatasetView Dataset, int Imported, IReadOnlyList<RefusedCompound> Refused);

/// <summary>REST: compound sources and fingerprint types, import, fingerprint datasets.</summary>
public static class ChemApi
{
    public static RouteGroupBuilder MapChemApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/api/chem").WithTags("Chem");

        group.MapGet("/sources", () => TypedResults.Ok(CompoundSource.Shipped.Select(s => new { s.Name, s.Description })))
            .WithName("ListCompoundSources").WithSummary("The compound files this service can import.");

        group.MapGet("/fingerprint-types", async (CompoundCatalog chem, CancellationToken cancellationToken) => TypedResults.Ok(await chem.TypesAsync(cancellationToken)))
            .WithName("ListFingerprintTypes").WithSummary("Named fingerprint types, their sizes, and the RDKit release (and call) that makes them here.");

        group.MapPost("/imports", async Task<Ok<DatasetView>> (CompoundCatalog chem, CompoundImportRequest request, CancellationToken cancellationToken) =>
            TypedResults.Ok(DatasetCatalog.ToView(await chem.ImportAsync(request, cancellationToken))))
            .WithName("ImportCompounds")
            .WithSummary("Imports a compound file (source: 40k, all, fixture; optionally only the first `limit`): a compounds dataset (ids, SMILES) whose metadata names a fingerprint dataset per shipped type — or your compound file at `location` (a path on the service's machine, or an https URL it fetches), fingerprinted by RDKit, or checks a stored compounds dataset (`datasetId`). Importing again returns the same datasets.");

        group.MapPost("/uploads", async Task<Created<CompoundUploadView>> (CompoundCatalog chem, UserFiles files, HttpRequest request, string name, string? format, string? fingerprints, CancellationToken cancellationToken) =>
        {
            await using var file = await files.FromRequestAsync(request, cancellationToken);
            var upload = await chem.UploadAsync(file, files.Sent(name), format, fingerprints, cancellationToken);
            return TypedResults.Created($"/api/datasets/{upload.Compounds.Id}", new CompoundUploadView(DatasetCatalog.ToView(upload.Compounds), upload.Compounds.Count, upload.Refused));
        })
            .Accepts<string>(UserFiles.UploadMediaTypes[0], UserFiles.UploadMediaTypes[1..])
            .TakesFile()
            .WithName("UploadCompounds")
            .WithSummary("Imports your own compound file — SMILES lines (`SMILES [id]`) or CSV with a `smiles` column (and `id` or `name`), plain or gzip, as the body or a multipart file — fingerprinted by RDKit (`fingerprints`: a comma-separated list of types, default all). Molecules RDKit cannot read are listed with their line and reason; the rest are imported. A malformed row, or a file RDKit reads nothing of, is 400 and stores nothing.");

        group.MapGet("/compounds/{id}/fingerprints/{type}", async Task<Ok<DatasetView>> (CompoundCatalog chem, string id, string type, CancellationToken cancellationToken) =>
            TypedResults.Ok(DatasetCatalog.ToView(await chem.FingerprintsAsync(DatasetCatalog.ParseId(id), type, cancellationToken))))
            .WithName("GetFingerprints")
            .WithSummary("The binary dataset of one fingerprint type of an imported compound set (labels = compound ids, weights 1).");

        group.MapGet("/compounds/{id}/properties", async Task<Ok<CompoundProperties>> (CompoundCatalog chem, string id, int? offset, int? limit, CancellationToken cancellationToken) =>
            TypedResults.Ok(await chem.PropertiesAsync(DatasetCatalog.ParseId(id), offset ?? 0, limit ?? 1000, cancellationToken)))
            .WithName("GetCompoundProperties")
            .WithSummary("The values an uploaded file gave its compounds besides id and structure — a CSV's other columns, an SD file's data fields — in the compounds' order (offset, limit ≤ 10,000); none for a shipped import.");

        group.MapGet("/depictions", async (Salsa.Chemistry.Rdkit rdkit, string smiles, int? width, int? height, CancellationToken cancellationToken) =>
            TypedResults.Text(await DepictAsync(rdkit, smiles, width, height, cancellationToken), "image/svg+xml"))
            .WithName("DepictMolecule")
            .WithSummary("RDKit's 2D drawing of a molecule given as SMILES (`width` × `height` pixels, default 250 × 200), as SVG; a SMILES RDKit cannot read is 400 with its reason.");

        return group;
    }

    /// <summary>RDKit's drawing of <paramref name="smiles"/>, its size checked (16 to 1,000 pixels a side).</summary>
    public static Task<string> DepictAsync(Salsa.Chemistry.Rdkit rdkit, string? smiles, int? width, int? height, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(rdkit);
        if (string.IsNullOrWhiteSpace(smiles))
        {
            throw new ArgumentException("Give the molecule as a SMILES (smiles).");
        }

        if (width is < 16 or > 1000 || height is < 16 or > 1000)
        {
            throw new ArgumentException("A depiction is 16 to 1,000 pixels a side.");
        }

        return rdkit.SvgAsync(smiles, width ?? 250, height ?? 200, cancellationToken);
    }
}
