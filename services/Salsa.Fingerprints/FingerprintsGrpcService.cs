using Grpc.Core;
using Microsoft.AspNetCore.Authorization;
using Salsa.Contracts.Common;
using Salsa.Contracts.Fingerprints;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Security;
using Salsa.Hosting.Timing;

namespace Salsa.Fingerprints;

/// <summary>gRPC face: <c>salsa.fingerprints.v1.Fingerprints</c> (watch, cancel and artifacts through <c>salsa.common.v1.Jobs</c>).</summary>
public sealed class FingerprintsGrpcService(ButinaJobs butina, BinaryAnnealingJobs annealing, FingerprintSearch search) : global::Salsa.Contracts.Fingerprints.Fingerprints.FingerprintsBase
{
    public override async Task<JobInfo> StartButina(StartButinaRequest request, ServerCallContext context) =>
        JobViews.ToProto(await butina.StartAsync(request, context.CancellationToken));

    [Authorize(Scopes.Read)]
    public override async Task<ButinaResult> GetButinaResult(JobRef request, ServerCallContext context) =>
        ServerTiming.Reported(context.GetHttpContext(), await butina.GetResultAsync(JobViews.ParseId(request.JobId), context.CancellationToken));

    public override async Task<JobInfo> StartAnnealing(Contracts.Annealing.StartAnnealingRequest request, ServerCallContext context) =>
        JobViews.ToProto(await annealing.StartAsync(request, context.CancellationToken));

    [Authorize(Scopes.Read)]
    public override async Task<Contracts.Annealing.AnnealingResult> GetAnnealingResult(JobRef request, ServerCallContext context) =>
        ServerTiming.Reported(context.GetHttpContext(), await annealing.GetResultAsync(JobViews.ParseId(request.JobId), context.CancellationToken));

    public override async Task<SearchResponse> Search(SearchRequest request, ServerCallContext context) =>
        (await search.SearchAsync(FingerprintSearchRequest.From(request), context.CancellationToken)).ToProto();
}
