using Grpc.Core;
using Microsoft.AspNetCore.Authorization;
using Salsa.Contracts.Common;
using Salsa.Hosting.Clustering.Annealing;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Security;
using Salsa.Hosting.Timing;

namespace Salsa.Annealing;

/// <summary>gRPC face: <c>salsa.annealing.v1.Annealing</c> (watch, cancel and artifacts through <c>salsa.common.v1.Jobs</c>).</summary>
public sealed class AnnealingGrpcService(AnnealingJobs jobs) : global::Salsa.Contracts.Annealing.Annealing.AnnealingBase
{
    public override async Task<JobInfo> Start(Contracts.Annealing.StartAnnealingRequest request, ServerCallContext context) =>
        JobViews.ToProto(await jobs.StartAsync(request, context.CancellationToken));

    [Authorize(Scopes.Read)]
    public override async Task<Contracts.Annealing.AnnealingResult> GetResult(JobRef request, ServerCallContext context) =>
        ServerTiming.Reported(context.GetHttpContext(), await jobs.GetResultAsync(JobViews.ParseId(request.JobId), context.CancellationToken));
}
