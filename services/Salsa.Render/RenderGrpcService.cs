using Grpc.Core;
using Salsa.Contracts.Common;
using Salsa.Contracts.Render;
using Salsa.Hosting.Jobs;

namespace Salsa.Render;

/// <summary>gRPC face: <c>salsa.render.v1.Render</c> (watch, cancel and the files through <c>salsa.common.v1.Jobs</c>).</summary>
public sealed class RenderGrpcService(RenderJobs jobs) : global::Salsa.Contracts.Render.Render.RenderBase
{
    public override async Task<JobInfo> StartCensusMap(RenderCensusMapRequest request, ServerCallContext context) =>
        JobViews.ToProto(await jobs.StartCensusMapAsync(CensusMapRequest.From(request), context.CancellationToken));

    public override async Task<JobInfo> StartMoleculeGrid(RenderMoleculeGridRequest request, ServerCallContext context) =>
        JobViews.ToProto(await jobs.StartMoleculeGridAsync(MoleculeGridRequest.From(request), context.CancellationToken));

    public override async Task<JobInfo> StartScatter(RenderScatterRequest request, ServerCallContext context) =>
        JobViews.ToProto(await jobs.StartScatterAsync(ScatterRequest.From(request), context.CancellationToken));
}
