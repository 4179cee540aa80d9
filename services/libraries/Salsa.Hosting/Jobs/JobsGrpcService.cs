using Grpc.Core;
using Microsoft.AspNetCore.Authorization;
using Salsa.Contracts.Common;
using Salsa.Hosting.Security;
using Salsa.Hosting.Timing;
using Salsa.Store;

namespace Salsa.Hosting.Jobs;

/// <summary>gRPC face of the jobs: <c>salsa.common.v1.Jobs</c>.</summary>
public sealed class JobsGrpcService(JobManager jobs, IDataStore store) : global::Salsa.Contracts.Common.Jobs.JobsBase
{
    [Authorize(Scopes.Read)]
    public override async Task<JobInfo> Get(JobRef request, ServerCallContext context)
    {
        var job = await jobs.GetRequiredAsync(JobViews.ParseId(request.JobId), context.CancellationToken);
        ServerTiming.AddJob(context.GetHttpContext(), job.QueueMilliseconds, job.ComputeMilliseconds);
        return JobViews.ToProto(job, await store.ListArtifactsAsync(job.Id, context.CancellationToken));
    }

    [Authorize(Scopes.Read)]
    public override async Task Watch(JobRef request, IServerStreamWriter<Contracts.Common.JobEvent> responseStream, ServerCallContext context)
    {
        var id = JobViews.ParseId(request.JobId);
        await foreach (var item in jobs.WatchAsync(id, context.CancellationToken))
        {
            var message = item switch
            {
                Jobs.JobEvent.Progress p => new Contracts.Common.JobEvent { Progress = JobViews.ToProto(p.Update) },
                Jobs.JobEvent.Status s => new Contracts.Common.JobEvent { Status = await StatusAsync(s.Job, context) },
                _ => throw new InvalidOperationException("Unknown job event."),
            };
            await responseStream.WriteAsync(message);
        }
    }

    public override async Task<JobInfo> Cancel(JobRef request, ServerCallContext context) =>
        JobViews.ToProto(await jobs.CancelAsync(JobViews.ParseId(request.JobId), context.CancellationToken));

    [Authorize(Scopes.Read)]
    public override async Task<ListJobsResponse> List(ListJobsRequest request, ServerCallContext context)
    {
        var response = new ListJobsResponse();
        foreach (var job in await jobs.ListAsync(request.Limit == 0 ? 100 : request.Limit, context.CancellationToken))
        {
            response.Jobs.Add(JobViews.ToProto(job));
        }

        return response;
    }

    [Authorize(Scopes.Read)]
    public override async Task<JobLogLines> GetLog(JobRef request, ServerCallContext context)
    {
        var log = await jobs.GetLogAsync(JobViews.ParseId(request.JobId), context.CancellationToken);
        var response = new JobLogLines { DroppedLines = log.DroppedLines };
        response.Lines.Add(log.Lines);
        return response;
    }

    [Authorize(Scopes.Read)]
    public override async Task DownloadArtifact(DownloadArtifactRequest request, IServerStreamWriter<Chunk> responseStream, ServerCallContext context)
    {
        var artifact = await jobs.GetArtifactAsync(JobViews.ParseId(request.JobId), request.Name, context.CancellationToken);
        await ArtifactChunks.WriteAsync(artifact, responseStream);
    }

    private async Task<JobInfo> StatusAsync(JobRecord job, ServerCallContext context)
    {
        var terminal = job.State is not (Store.JobState.Queued or Store.JobState.Running);
        if (terminal)
        {
            ServerTiming.AddJob(context.GetHttpContext(), job.QueueMilliseconds, job.ComputeMilliseconds);
        }

        return JobViews.ToProto(job, terminal ? await store.ListArtifactsAsync(job.Id, context.CancellationToken) : null);
    }
}
