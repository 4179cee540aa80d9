using Salsa.Contracts.Common;
using Salsa.Grpc;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Timing;

namespace Salsa.Mds;

/// <summary>gRPC face: <c>salsa.mds.v1.Mds</c> (watch, cancel and artifacts through <c>salsa.common.v1.Jobs</c>).</summary>
public sealed class MdsGrpcService(MdsJobs jobs)
{
    public async Task<JobInfo> Start(Contracts.Mds.StartEmbeddingRequest request, ServerCallContext context) =>
        JobViews.ToProto(await jobs.StartAsync(EmbeddingRequest.From(request), context.CancellationToken));

    public async Task<Contracts.Mds.EmbeddingResult> GetResult(JobRef request, ServerCallContext context) =>
        ServerTiming.Reported(context.HttpContext, await jobs.GetResultAsync(JobViews.ParseId(request.JobId), context.CancellationToken)).ToProto();
}
