using Salsa.Contracts.Common;
using Salsa.Grpc;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Timing;

namespace Salsa.KMeans;

/// <summary>gRPC face: <c>salsa.kmeans.v1.KMeans</c> (watch, cancel and artifacts through <c>salsa.common.v1.Jobs</c>).</summary>
public sealed class KMeansGrpcService(KMeansJobs jobs)
{
    public async Task<JobInfo> Start(Contracts.KMeans.StartKMeansRequest request, ServerCallContext context) =>
        JobViews.ToProto(await jobs.StartAsync(KMeansRequest.From(request), context.CancellationToken));

    public async Task<Contracts.KMeans.KMeansResult> GetResult(JobRef request, ServerCallContext context) =>
        ServerTiming.Reported(context.HttpContext, await jobs.GetResultAsync(JobViews.ParseId(request.JobId), context.CancellationToken)).ToProto();
}
