using System.Globalization;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.Routing;
using Microsoft.AspNetCore.WebUtilities;
using Salsa.DataFiles;
using Salsa.Store;

namespace Salsa.Hosting.Datasets;

/// <summary>An upload in one JSON document (small data; large data goes through gRPC chunks or CSV).</summary>
public sealed record DatasetUpload(
    string Name,
    string Kind,
    int Dimension,
    int Bits,
    string? FingerprintType,
    double[]? Values,
    string[]? Fingerprints,
    double[]? Weights,
    string[]? Labels,
    Dictionary<string, string>? Metadata);

/// <summary>A dataset's new name.</summary>
public sealed record DatasetRename(string Name);

/// <summary>REST for datasets: upload (JSON or streamed CSV), list, get, rename, delete.</summary>
public static class DatasetsApi
{
    public static RouteGroupBuilder MapDatasetsApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/api/datasets").WithTags("Datasets");

        group.MapPost("/", async Task<Created<DatasetView>> (DatasetCatalog catalog, DatasetUpload upload, CancellationToken cancellationToken) =>
        {
            var kind = DatasetCatalog.ParseKind(upload.Kind);
            var builder = new DatasetBuilder(upload.Name, kind, upload.Dimension, upload.Bits, upload.FingerprintType, upload.Metadata, catalog.Limits);
            var words = kind == DatasetKind.Binary ? ParseFingerprints(upload.Fingerprints ?? [], upload.Bits) : [];
            builder.Add(upload.Values ?? [], words, upload.Weights ?? [], upload.Labels ?? []);
            await catalog.RequireRoomAsync(cancellationToken);
            var info = await catalog.CreateAsync(builder, "upload (json)", cancellationToken);
            return TypedResults.Created($"/api/datasets/{info.Id}", DatasetCatalog.ToView(info));
        }).TakesFile().WithName("UploadDataset").WithSummary("Uploads a dense (values) or binary (hex fingerprints) dataset as one JSON document.");

        group.MapPost("/csv", async Task<Created<DatasetView>> (DatasetCatalog catalog, UserFiles files, HttpRequest request, string name, string kind, int? dimension, int? bits, string? fingerprintType, bool? weights, CancellationToken cancellationToken) =>
        {
            var parsedKind = DatasetCatalog.ParseKind(kind);
            var builder = new DatasetBuilder(name, parsedKind, dimension ?? 0, bits ?? 0, fingerprintType, null, catalog.Limits);
            await catalog.RequireRoomAsync(cancellationToken);

            // The body is buffered (to disk past 1 MiB; its size is bounded by the endpoint's limit)
            // so that its lines are read by the bounded line reader, each at most MaxRecordBytes.
            request.EnableBuffering(bufferThreshold: 1 << 20);
            await request.Body.DrainAsync(cancellationToken);
            request.Body.Position = 0;
            ReadCsv(request.Body, files.Sent(name), builder, weights == true);
            var info = await catalog.CreateAsync(builder, "upload (csv)", cancellationToken);
            return TypedResults.Created($"/api/datasets/{info.Id}", DatasetCatalog.ToView(info));
        }).Accepts<string>("text/csv").TakesFile().WithName("UploadDatasetCsv")
          .WithSummary("Streams a CSV upload: dense rows 'x1,…,xd[,weight]' or binary rows 'hex[,weight]'; a header line is skipped.");

        group.MapGet("/usage", async (DatasetCatalog catalog, CancellationToken cancellationToken) =>
            TypedResults.Ok(await catalog.UsageAsync(cancellationToken)))
            .WithName("GetDatasetUsage").WithSummary("What the caller's tenant stores (datasets, bytes) and what its quota allows; an upload past the quota is refused with 403.");

        group.MapGet("/", async (DatasetCatalog catalog, int? limit, CancellationToken cancellationToken) =>
            TypedResults.Ok((await catalog.ListAsync(limit ?? 100, cancellationToken)).Select(DatasetCatalog.ToView).ToList()))
            .WithName("ListDatasets").WithSummary("Datasets, newest first.");

        group.MapGet("/{id}", async (DatasetCatalog catalog, string id, CancellationToken cancellationToken) =>
            TypedResults.Ok(DatasetCatalog.ToView(await catalog.GetRequiredAsync(DatasetCatalog.ParseId(id), cancellationToken))))
            .WithName("GetDataset").WithSummary("A dataset's description.");

        group.MapPatch("/{id}", async (DatasetCatalog catalog, string id, DatasetRename rename, CancellationToken cancellationToken) =>
            TypedResults.Ok(DatasetCatalog.ToView(await catalog.RenameAsync(DatasetCatalog.ParseId(id), rename.Name, cancellationToken))))
            .WithName("RenameDataset").WithSummary("Gives a dataset a new name (1–200 characters); its id, content and digest stay, so the runs that used it still name it.");

        group.MapDelete("/{id}", async (DatasetCatalog catalog, string id, CancellationToken cancellationToken) =>
        {
            await catalog.DeleteAsync(DatasetCatalog.ParseId(id), cancellationToken);
            return TypedResults.NoContent();
        }).WithName("DeleteDataset").WithSummary("Deletes a dataset and its points; 409 while a queued or running job or run uses it.");

        return group;
    }

    private static ulong[] ParseFingerprints(string[] hex, int bits)
    {
        var type = new FingerprintType("upload", bits, "hex");
        var words = new ulong[hex.Length * type.Words];
        for (var i = 0; i < hex.Length; i++)
        {
            CompoundSet.ParseHex(hex[i], type, words.AsSpan(i * type.Words, type.Words), i + 1, "fingerprints");
        }

        return words;
    }

    private static void ReadCsv(Stream body, UserFileSource source, DatasetBuilder builder, bool hasWeights)
    {
        using var reader = new StreamReader(body);
        var lines = new UserFileLines(reader, source);
        var values = new List<double>();
        var words = new List<ulong>();
        var weights = new List<double>();
        var type = new FingerprintType("upload", Math.Max(builder.Bits, 1), "hex");
        var scratch = new ulong[type.Words];
        var line = 0;
        while (lines.ReadLine() is { } text)
        {
            line++;
            if (text.Length == 0 || (line == 1 && IsHeader(text, builder.Kind)))
            {
                continue; // blank line or header
            }

            var fields = text.Split(',');
            var expected = (builder.Kind == DatasetKind.Dense ? builder.Dimension : 1) + (hasWeights ? 1 : 0);
            if (fields.Length != expected)
            {
                throw new InvalidDataException($"CSV line {line} has {fields.Length} fields, expected {expected}.");
            }

            if (builder.Kind == DatasetKind.Dense)
            {
                for (var j = 0; j < builder.Dimension; j++)
                {
                    values.Add(Number(fields[j], line));
                }
            }
            else
            {
                CompoundSet.ParseHex(fields[0].Trim(), type, scratch, line, "CSV");
                words.AddRange(scratch);
            }

            if (hasWeights)
            {
                weights.Add(Number(fields[^1], line));
            }

            if (values.Count + words.Count >= 64 * 1024)
            {
                builder.Add(values, words, weights, []);
                values.Clear();
                words.Clear();
                weights.Clear();
            }
        }

        builder.Add(values, words, weights, []);
    }

    /// <summary>
    /// A first line that cannot be data: its first field is not a number (dense; NaN and Infinity
    /// are numbers, refused later as not finite) or not hex digits (binary).
    /// </summary>
    private static bool IsHeader(string text, DatasetKind kind)
    {
        var first = text.Split(',')[0].Trim();
        return kind == DatasetKind.Dense
            ? !double.TryParse(first, NumberStyles.Float, CultureInfo.InvariantCulture, out _)
            : first.Length == 0 || !first.All(char.IsAsciiHexDigit);
    }

    private static double Number(string field, int line) =>
        double.TryParse(field, NumberStyles.Float, CultureInfo.InvariantCulture, out var value)
            ? value
            : throw new InvalidDataException($"CSV line {line}: '{field}' is not a number.");
}
