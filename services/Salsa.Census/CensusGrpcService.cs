using Grpc.Core;
using Salsa.Contracts.Census;
using Salsa.Contracts.Datasets;
using Salsa.Hosting.Datasets;
using PlaceColumns = Salsa.DataFiles.PlaceColumns;

namespace Salsa.Census;

/// <summary>gRPC face: <c>salsa.census.v1.Census</c>.</summary>
public sealed class CensusGrpcService(CensusCatalog census, UserFiles files) : global::Salsa.Contracts.Census.Census.CensusBase
{
    public override async Task<DatasetInfo> Import(ImportCensusRequest request, ServerCallContext context)
    {
        var places = request.Places;
        var import = new CensusImportRequest(
            request.Source,
            request.Location,
            places?.Name,
            places?.Format,
            ToColumns(places?.Columns),
            string.IsNullOrEmpty(request.DatasetId) ? null : DatasetCatalog.ParseId(request.DatasetId));
        return DatasetCatalog.ToProto(await census.ImportAsync(import, context.CancellationToken));
    }

    public override async Task<DatasetInfo> Upload(IAsyncStreamReader<UploadPlacesRequest> requestStream, ServerCallContext context)
    {
        var (header, file) = await files.FromGrpcAsync(
            requestStream,
            r => r.PartCase == UploadPlacesRequest.PartOneofCase.Header ? r.Header : null,
            r => r.PartCase == UploadPlacesRequest.PartOneofCase.Chunk ? r.Chunk : null,
            context.CancellationToken);
        await using (file)
        {
            return DatasetCatalog.ToProto(await census.UploadAsync(file, files.Sent(header.Name), header.Format, ToColumns(header.Columns), context.CancellationToken));
        }
    }

    public override async Task<DatasetInfo> Query(QueryCensusRequest request, ServerCallContext context)
    {
        var box = request.BoundingBox;
        var query = new CensusQuery
        {
            DatasetId = DatasetCatalog.ParseId(request.DatasetId),
            States = [.. request.States],
            Counties = [.. request.Counties],
            Groups = [.. request.Groups],
            BoundingBox = box is null ? null : new GeoBox(box.MinLatitude, box.MinLongitude, box.MaxLatitude, box.MaxLongitude),
            SkipUnpopulated = request.SkipUnpopulated,
            ContiguousOnly = request.ContiguousOnly,
        };
        return DatasetCatalog.ToProto(await census.QueryAsync(query, context.CancellationToken));
    }

    private static PlaceColumns? ToColumns(global::Salsa.Contracts.Census.PlaceColumns? columns) => columns is null ? null : new PlaceColumns
    {
        Id = Named(columns.Id),
        Latitude = Named(columns.Latitude),
        Longitude = Named(columns.Longitude),
        Weight = Named(columns.Weight),
        Groups = [.. columns.Groups],
    };

    private static string? Named(string name) => string.IsNullOrEmpty(name) ? null : name;
}
