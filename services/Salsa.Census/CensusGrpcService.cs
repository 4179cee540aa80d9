using Salsa.Contracts.Census;
using Salsa.Contracts.Datasets;
using Grpc.Core;
using Salsa.Hosting.Datasets;

namespace Salsa.Census;

/// <summary>gRPC face: <c>salsa.census.v1.Census</c>.</summary>
public sealed class CensusGrpcService(CensusCatalog census) : global::Salsa.Contracts.Census.Census.CensusBase
{
    public override async Task<DatasetInfo> Import(ImportCensusRequest request, ServerCallContext context) =>
        DatasetCatalog.ToProto(await census.ImportAsync(request.Source, context.CancellationToken));

    public override async Task<DatasetInfo> Query(QueryCensusRequest request, ServerCallContext context)
    {
        var box = request.BoundingBox;
        var query = new CensusQuery
        {
            DatasetId = DatasetCatalog.ParseId(request.DatasetId),
            States = [.. request.States],
            Counties = [.. request.Counties],
            BoundingBox = box is null ? null : new GeoBox(box.MinLatitude, box.MinLongitude, box.MaxLatitude, box.MaxLongitude),
            SkipUnpopulated = request.SkipUnpopulated,
            ContiguousOnly = request.ContiguousOnly,
        };
        return DatasetCatalog.ToProto(await census.QueryAsync(query, context.CancellationToken));
    }
}
