using Grpc.Core;
using Microsoft.AspNetCore.Authorization;
using Salsa.Contracts.Common;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Security;
using Salsa.Hosting.Timing;

namespace Salsa.KMeans;

/// <summary>gRPC face: <c>salsa.kmeans.v1.KMeans</c> (watch, cancel and artifacts through <c>salsa.common.v1.Jobs</c>).</summary>
public sealed class KMeansGrpcService(KMeansJobs jobs) : global::Salsa.Contracts.KMeans.KMeans.KMeansBase
{
    public override async Task<JobInfo> Start(Contracts.KMeans.StartKMeansRequest request, ServerCallContext context) =>
        JobViews.ToProto(await jobs.StartAsync(request, context.CancellationToken));

    [Authorize(Scopes.Read)]
    public override async Task<Contracts.KMeans.KMeansResult> GetResult(JobRef request, ServerCallContext context) =>
        ServerTiming.Reported(context.GetHttpContext(), await jobs.GetResultAsync(JobViews.ParseId(request.JobId), context.CancellationToken));
}
