using Grpc.Core;
using Microsoft.AspNetCore.Authorization;
using Salsa.Contracts.Chem;
using Salsa.Contracts.Datasets;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Security;

namespace Salsa.Chem;

/// <summary>gRPC face: <c>salsa.chem.v1.Chem</c>.</summary>
public sealed class ChemGrpcService(CompoundCatalog chem, UserFiles files, Salsa.Chemistry.Rdkit rdkit) : global::Salsa.Contracts.Chem.Chem.ChemBase
{
    public override async Task<DatasetInfo> Import(ImportCompoundsRequest request, ServerCallContext context)
    {
        var header = request.Compounds;
        var import = new CompoundImportRequest(
            request.Source,
            request.Limit,
            request.Location,
            header?.Name,
            header?.Format,
            header is null ? null : string.Join(',', header.Fingerprints),
            string.IsNullOrEmpty(request.DatasetId) ? null : DatasetCatalog.ParseId(request.DatasetId));
        return DatasetCatalog.ToProto(await chem.ImportAsync(import, context.CancellationToken));
    }

    public override async Task<UploadCompoundsResponse> Upload(IAsyncStreamReader<UploadCompoundsRequest> requestStream, ServerCallContext context)
    {
        var (header, file) = await files.FromGrpcAsync(
            requestStream,
            r => r.PartCase == UploadCompoundsRequest.PartOneofCase.Header ? r.Header : null,
            r => r.PartCase == UploadCompoundsRequest.PartOneofCase.Chunk ? r.Chunk : null,
            context.CancellationToken);
        await using (file)
        {
            var upload = await chem.UploadAsync(file, files.Sent(header.Name), header.Format, string.Join(',', header.Fingerprints), context.CancellationToken);
            var response = new UploadCompoundsResponse { Dataset = DatasetCatalog.ToProto(upload.Compounds) };
            response.Refused.Add(upload.Refused.Select(r => new global::Salsa.Contracts.Chem.RefusedCompound { Line = r.Line, Id = r.Id, Smiles = r.Smiles, Reason = r.Reason }));
            return response;
        }
    }

    [Authorize(Scopes.Read)]
    public override async Task<DatasetInfo> Fingerprints(FingerprintRequest request, ServerCallContext context) =>
        DatasetCatalog.ToProto(await chem.FingerprintsAsync(DatasetCatalog.ParseId(request.DatasetId), request.FingerprintType, context.CancellationToken));

    [Authorize(Scopes.Read)]
    public override async Task<DepictResponse> Depict(DepictRequest request, ServerCallContext context) =>
        new() { Svg = await ChemApi.DepictAsync(rdkit, request.Smiles, request.Width == 0 ? null : request.Width, request.Height == 0 ? null : request.Height, context.CancellationToken) };

    [Authorize(Scopes.Read)]
    public override async Task<ListFingerprintTypesResponse> ListFingerprintTypes(ListFingerprintTypesRequest request, ServerCallContext context)
    {
        var response = new ListFingerprintTypesResponse();
        response.Types_.Add((await chem.TypesAsync(context.CancellationToken)).Select(t => new FingerprintType
        {
            Name = t.Name, Bits = t.Bits, Description = t.Description, RdkitVersion = t.RdkitVersion ?? "", Options = t.Options ?? "",
        }));
        return response;
    }
}
