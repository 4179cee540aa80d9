using Grpc.Core;
using Microsoft.AspNetCore.Authorization;
using Salsa.Contracts.Common;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Security;
using Salsa.Hosting.Timing;

namespace Salsa.Mds;

/// <summary>gRPC face: <c>salsa.mds.v1.Mds</c> (watch, cancel and artifacts through <c>salsa.common.v1.Jobs</c>).</summary>
public sealed class MdsGrpcService(MdsJobs jobs) : global::Salsa.Contracts.Mds.Mds.MdsBase
{
    public override async Task<JobInfo> Start(Contracts.Mds.StartEmbeddingRequest request, ServerCallContext context) =>
        JobViews.ToProto(await jobs.StartAsync(request, context.CancellationToken));

    [Authorize(Scopes.Read)]
    public override async Task<Contracts.Mds.EmbeddingResult> GetResult(JobRef request, ServerCallContext context) =>
        ServerTiming.Reported(context.GetHttpContext(), await jobs.GetResultAsync(JobViews.ParseId(request.JobId), context.CancellationToken));
}
