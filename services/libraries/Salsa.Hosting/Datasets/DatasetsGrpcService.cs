using Grpc.Core;
using Microsoft.AspNetCore.Authorization;
using Salsa.Contracts.Datasets;
using Salsa.Hosting.Security;

namespace Salsa.Hosting.Datasets;

/// <summary>gRPC face of the datasets: <c>salsa.datasets.v1.Datasets</c>.</summary>
public sealed class DatasetsGrpcService(DatasetCatalog catalog) : global::Salsa.Contracts.Datasets.Datasets.DatasetsBase
{
    private const int PointsPerChunk = 16_384;

    public override async Task<DatasetInfo> Upload(IAsyncStreamReader<UploadRequest> requestStream, ServerCallContext context)
    {
        DatasetBuilder? builder = null;
        await foreach (var request in requestStream.ReadAllAsync(context.CancellationToken))
        {
            switch (request.PartCase)
            {
                case UploadRequest.PartOneofCase.Header when builder is null:
                    var header = request.Header;
                    builder = new DatasetBuilder(header.Name, (Store.DatasetKind)(int)header.Kind, header.Dimension, header.Bits, header.FingerprintType, header.Metadata, catalog.Limits);
                    break;
                case UploadRequest.PartOneofCase.Header:
                    throw new ArgumentException("An upload has one header, first.");
                case UploadRequest.PartOneofCase.Chunk when builder is not null:
                    builder.Add(request.Chunk.Values, request.Chunk.Words, request.Chunk.Weights, request.Chunk.Labels);
                    break;
                default:
                    throw new ArgumentException("An upload starts with its header, then sends chunks of points.");
            }
        }

        if (builder is null)
        {
            throw new ArgumentException("The upload was empty: send a header, then chunks of points.");
        }

        return DatasetCatalog.ToProto(await catalog.CreateAsync(builder, "upload (grpc)", context.CancellationToken));
    }

    [Authorize(Scopes.Read)]
    public override async Task<DatasetInfo> Get(DatasetRef request, ServerCallContext context) =>
        DatasetCatalog.ToProto(await catalog.GetRequiredAsync(DatasetCatalog.ParseId(request.DatasetId), context.CancellationToken));

    [Authorize(Scopes.Read)]
    public override async Task<ListDatasetsResponse> List(ListDatasetsRequest request, ServerCallContext context)
    {
        var response = new ListDatasetsResponse();
        foreach (var info in await catalog.ListAsync(request.Limit == 0 ? 100 : request.Limit, context.CancellationToken))
        {
            response.Datasets.Add(DatasetCatalog.ToProto(info));
        }

        return response;
    }

    public override async Task<DatasetInfo> Delete(DatasetRef request, ServerCallContext context)
    {
        var info = await catalog.DeleteAsync(DatasetCatalog.ParseId(request.DatasetId), context.CancellationToken);
        return DatasetCatalog.ToProto(info);
    }

    public override async Task<DatasetInfo> Rename(RenameDatasetRequest request, ServerCallContext context) =>
        DatasetCatalog.ToProto(await catalog.RenameAsync(DatasetCatalog.ParseId(request.DatasetId), request.Name, context.CancellationToken));

    [Authorize(Scopes.Read)]
    public override async Task Download(DatasetRef request, IServerStreamWriter<PointChunk> responseStream, ServerCallContext context)
    {
        var (info, content) = await catalog.ReadRequiredAsync(DatasetCatalog.ParseId(request.DatasetId), context.CancellationToken);
        var words = (info.Bits + 63) / 64;
        for (var start = 0; start < info.Count; start += PointsPerChunk)
        {
            var count = Math.Min(PointsPerChunk, info.Count - start);
            var chunk = new PointChunk();
            if (content.Values is { } values)
            {
                chunk.Values.Add(values.AsSpan(start * info.Dimension, count * info.Dimension).ToArray());
            }

            if (content.Words is { } packed)
            {
                chunk.Words.Add(packed.AsSpan(start * words, count * words).ToArray());
            }

            chunk.Weights.Add(content.Weights.AsSpan(start, count).ToArray());
            if (content.Labels is { } labels)
            {
                chunk.Labels.Add(labels.AsSpan(start, count).ToArray());
            }

            await responseStream.WriteAsync(chunk);
        }
    }
}
