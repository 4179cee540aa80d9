using Salsa.Annealing;
using Salsa.Contracts.Common;
using Salsa.Contracts.Fingerprints;
using Salsa.Grpc;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Timing;
using AnnealingProto = Salsa.Contracts.Annealing;

namespace Salsa.Fingerprints;

/// <summary>gRPC face: <c>salsa.fingerprints.v1.Fingerprints</c> (watch, cancel and artifacts through <c>salsa.common.v1.Jobs</c>).</summary>
public sealed class FingerprintsGrpcService(ButinaJobs butina, BinaryAnnealingJobs annealing, FingerprintSearch search)
{
    public async Task<JobInfo> StartButina(StartButinaRequest request, ServerCallContext context) =>
        JobViews.ToProto(await butina.StartAsync(ButinaRequest.From(request), context.CancellationToken));

    public async Task<ButinaResult> GetButinaResult(JobRef request, ServerCallContext context) =>
        ServerTiming.Reported(context.HttpContext, await butina.GetResultAsync(JobViews.ParseId(request.JobId), context.CancellationToken)).ToProto();

    public async Task<JobInfo> StartAnnealing(AnnealingProto.StartAnnealingRequest request, ServerCallContext context) =>
        JobViews.ToProto(await annealing.StartAsync(AnnealingRequest.From(request), context.CancellationToken));

    public async Task<AnnealingProto.AnnealingResult> GetAnnealingResult(JobRef request, ServerCallContext context) =>
        ServerTiming.Reported(context.HttpContext, await annealing.GetResultAsync(JobViews.ParseId(request.JobId), context.CancellationToken)).ToProto();

    public async Task<SearchResponse> Search(SearchRequest request, ServerCallContext context) =>
        (await search.SearchAsync(FingerprintSearchRequest.From(request), context.CancellationToken)).ToProto();
}
