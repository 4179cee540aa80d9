using Microsoft.AspNetCore.Authorization;
using Salsa.Contracts.Chem;
using Salsa.Contracts.Datasets;
using Grpc.Core;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Security;

namespace Salsa.Chem;

/// <summary>gRPC face: <c>salsa.chem.v1.Chem</c>.</summary>
public sealed class ChemGrpcService(CompoundCatalog chem) : global::Salsa.Contracts.Chem.Chem.ChemBase
{
    public override async Task<DatasetInfo> Import(ImportCompoundsRequest request, ServerCallContext context) =>
        DatasetCatalog.ToProto(await chem.ImportAsync(request.Source, request.Limit, context.CancellationToken));

    [Authorize(Scopes.Read)]
    public override async Task<DatasetInfo> Fingerprints(FingerprintRequest request, ServerCallContext context) =>
        DatasetCatalog.ToProto(await chem.FingerprintsAsync(DatasetCatalog.ParseId(request.DatasetId), request.FingerprintType, context.CancellationToken));

    [Authorize(Scopes.Read)]
    public override Task<ListFingerprintTypesResponse> ListFingerprintTypes(ListFingerprintTypesRequest request, ServerCallContext context)
    {
        var response = new ListFingerprintTypesResponse();
        response.Types_.Add(CompoundCatalog.Types.Select(t => new FingerprintType { Name = t.Name, Bits = t.Bits, Description = t.Description }));
        return Task.FromResult(response);
    }
}
