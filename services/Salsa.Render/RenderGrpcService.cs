using Salsa.Contracts.Common;
using Salsa.Contracts.Render;
using Salsa.Grpc;
using Salsa.Hosting.Jobs;

namespace Salsa.Render;

/// <summary>gRPC face: <c>salsa.render.v1.Render</c> (watch, cancel and the files through <c>salsa.common.v1.Jobs</c>).</summary>
public sealed class RenderGrpcService(RenderJobs jobs)
{
    public async Task<JobInfo> StartCensusMap(RenderCensusMapRequest request, ServerCallContext context) =>
        JobViews.ToProto(await jobs.StartCensusMapAsync(CensusMapRequest.From(request), context.CancellationToken));

    public async Task<JobInfo> StartScatter(RenderScatterRequest request, ServerCallContext context) =>
        JobViews.ToProto(await jobs.StartScatterAsync(ScatterRequest.From(request), context.CancellationToken));
}
