using Google.Protobuf;
using Salsa.Contracts.Census;
using Salsa.Contracts.Chem;
using Salsa.Contracts.Clients;
using Salsa.Gateway.Services;
using Salsa.Hosting.Datasets;

namespace Salsa.Gateway.Api;

/// <summary>
/// REST for a user's own files through the gateway — what the web UI's upload uses: the body (or a
/// multipart form's first file) streams on to the census or chem service over its gRPC client
/// stream, in chunks, and the service's answer comes back (a bad row is its 400, nothing stored).
/// </summary>
public static class UploadsApi
{
    private const int ChunkBytes = 64 * 1024;

    public static IEndpointRouteBuilder MapUploadsApi(this IEndpointRouteBuilder app)
    {
        var uploads = app.MapGroup("/api/uploads").WithTags("Uploads");

        uploads.MapPost("/places", async (ServiceDirectory services, HttpRequest request, string name, string? format, string? id, string? latitude, string? longitude, string? weight, string? groups, CancellationToken cancellationToken) =>
        {
            var header = new UploadPlacesHeader
            {
                Name = name,
                Format = format ?? "",
                Columns = new PlaceColumns { Id = id ?? "", Latitude = latitude ?? "", Longitude = longitude ?? "", Weight = weight ?? "" },
            };
            header.Columns.Groups.AddRange(Split(groups));
            using var call = new CensusClient(await services.ChannelAsync("census", cancellationToken)).Upload(cancellationToken: cancellationToken);
            await call.RequestStream.WriteAsync(new UploadPlacesRequest { Header = header }, cancellationToken);
            await SendAsync(request, chunk => call.RequestStream.WriteAsync(new UploadPlacesRequest { Chunk = chunk }, cancellationToken), cancellationToken);
            await call.RequestStream.CompleteAsync();
            var dataset = await call;
            return TypedResults.Created($"/api/uploads/places/{dataset.DatasetId}", new { dataset = Json(dataset) });
        }).Accepts<string>(UserFiles.UploadMediaTypes[0], UserFiles.UploadMediaTypes[1..])
          .TakesFile()
          .WithName("UploadPlaces")
          .WithSummary("Your own places (CSV or GeoJSON points, plain or gzip) as a census dataset, through the census service: 201 with the dataset; a bad row is 400 with its line, and nothing is stored. Run census-places on it with import.dataset.");

        uploads.MapPost("/compounds", async (ServiceDirectory services, HttpRequest request, string name, string? format, string? fingerprints, CancellationToken cancellationToken) =>
        {
            var header = new UploadCompoundsHeader { Name = name, Format = format ?? "" };
            header.Fingerprints.AddRange(Split(fingerprints));
            using var call = new ChemClient(await services.ChannelAsync("chem", cancellationToken)).Upload(cancellationToken: cancellationToken);
            await call.RequestStream.WriteAsync(new UploadCompoundsRequest { Header = header }, cancellationToken);
            await SendAsync(request, chunk => call.RequestStream.WriteAsync(new UploadCompoundsRequest { Chunk = chunk }, cancellationToken), cancellationToken);
            await call.RequestStream.CompleteAsync();
            var answer = await call;
            return TypedResults.Created($"/api/uploads/compounds/{answer.Dataset.DatasetId}", new
            {
                dataset = Json(answer.Dataset),
                refused = answer.Refused.Select(r => new { r.Line, r.Id, r.Smiles, r.Reason }),
            });
        }).Accepts<string>(UserFiles.UploadMediaTypes[0], UserFiles.UploadMediaTypes[1..])
          .TakesFile()
          .WithName("UploadCompounds")
          .WithSummary("Your own compounds (SMILES lines, CSV or SDF, plain or gzip) fingerprinted by RDKit, through the chem service: 201 with the dataset and the molecules RDKit could not read (line, reason). Run chem-compounds on it with import.dataset.");

        app.MapGet("/api/depictions", async (ServiceDirectory services, string smiles, int? width, int? height, CancellationToken cancellationToken) =>
        {
            var chem = new ChemClient(await services.ChannelAsync("chem", cancellationToken));
            var answer = await chem.DepictAsync(new DepictRequest { Smiles = smiles, Width = width ?? 0, Height = height ?? 0 }, cancellationToken: cancellationToken);
            return TypedResults.Text(answer.Svg, "image/svg+xml");
        }).WithTags("Uploads").WithName("Depict")
          .WithSummary("RDKit's drawing of a molecule given as SMILES (SVG), through the chem service: what the web UI shows beside search hits.");

        return app;
    }

    /// <summary>The body, or the form's first file, in chunks as it arrives.</summary>
    private static async Task SendAsync(HttpRequest request, Func<ByteString, Task> send, CancellationToken cancellationToken)
    {
        var (body, _) = await UserFiles.RequestFileAsync(request, cancellationToken);
        var buffer = new byte[ChunkBytes];
        int read;
        while ((read = await body.ReadAtLeastAsync(buffer, ChunkBytes, throwOnEndOfStream: false, cancellationToken)) > 0)
        {
            await send(ByteString.CopyFrom(buffer, 0, read));
        }
    }

    private static object Json(Salsa.Contracts.Datasets.DatasetInfo dataset) => new
    {
        datasetId = dataset.DatasetId,
        dataset.Name,
        kind = dataset.Kind.ToString().ToLowerInvariant(),
        dataset.Count,
        dataset.TotalWeight,
        metadata = dataset.Metadata,
    };

    private static string[] Split(string? list) => list?.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries) ?? [];
}
