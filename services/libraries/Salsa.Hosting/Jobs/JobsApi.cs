using System.Net.ServerSentEvents;
using System.Runtime.CompilerServices;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Salsa.Hosting.Timing;
using Salsa.Store;

namespace Salsa.Hosting.Jobs;

/// <summary>REST for the jobs of a service: status, progress (SSE), result, artifacts, cancel.</summary>
public static class JobsApi
{
    public static RouteGroupBuilder MapJobsApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/api/jobs").WithTags("Jobs");

        group.MapGet("/", async (JobManager jobs, int? limit, CancellationToken cancellationToken) =>
        {
            var list = await jobs.ListAsync(limit ?? 100, cancellationToken);
            return TypedResults.Ok(list.Select(j => JobViews.ToView(j, [])).ToList());
        }).WithName("ListJobs").WithSummary("This service's jobs, newest first.");

        group.MapGet("/{id}", async (JobManager jobs, IDataStore store, HttpContext http, string id, CancellationToken cancellationToken) =>
        {
            var job = await jobs.GetRequiredAsync(JobViews.ParseId(id), cancellationToken);
            ServerTiming.AddJob(http, job.QueueMilliseconds, job.ComputeMilliseconds);
            return TypedResults.Ok(JobViews.ToView(job, await store.ListArtifactsAsync(job.Id, cancellationToken)));
        }).WithName("GetJob").WithSummary("A job's state, progress, timings and (once done) result and artifacts.");

        group.MapGet("/{id}/events", (JobManager jobs, string id, CancellationToken cancellationToken) =>
            new Rpc.EventStreamResult(Events(jobs, JobViews.ParseId(id), cancellationToken)))
            .WithName("WatchJob").WithSummary("Server-sent events: 'status' (the job) and 'progress' items until the job ends.")
            .WithMetadata(new Rpc.ServerSentEventsMetadata(("progress", typeof(JobProgressUpdate)), ("status", typeof(JobView))));

        group.MapGet("/{id}/log", async (JobManager jobs, string id, CancellationToken cancellationToken) =>
            TypedResults.Text((await jobs.GetLogAsync(JobViews.ParseId(id), cancellationToken)).ToText(), "text/plain; charset=utf-8"))
            .WithName("GetJobLog").WithSummary("What the job logged, as text: accepted, started, each phase, its end, and the service's lines while it ran (the last 1,000 jobs since the service started).");

        group.MapPost("/{id}/cancel", async (JobManager jobs, string id, CancellationToken cancellationToken) =>
            TypedResults.Ok(JobViews.ToView(await jobs.CancelAsync(JobViews.ParseId(id), cancellationToken), [])))
            .WithName("CancelJob").WithSummary("Cancels a queued or running job (no effect on a finished one).");

        group.MapGet("/{id}/result", async (JobManager jobs, HttpContext http, string id, CancellationToken cancellationToken) =>
        {
            var (job, result) = await jobs.GetResultAsync(JobViews.ParseId(id), cancellationToken);
            ServerTiming.AddJob(http, job.QueueMilliseconds, job.ComputeMilliseconds);
            return TypedResults.Text(result, "application/json");
        }).WithName("GetJobResult").WithSummary("The result summary of a succeeded job (409 while it runs or if it failed).");

        group.MapGet("/{id}/artifacts/{name}", async (JobManager jobs, string id, string name, CancellationToken cancellationToken) =>
        {
            var artifact = await jobs.GetArtifactAsync(JobViews.ParseId(id), name, cancellationToken);
            return TypedResults.File(artifact.Data, artifact.ContentType, artifact.Name);
        }).WithName("GetJobArtifact").WithSummary("A file the job produced (assignments, maps, GeoJSON).");

        return group;
    }

    private static async IAsyncEnumerable<SseItem<object>> Events(JobManager jobs, Guid id, [EnumeratorCancellation] CancellationToken cancellationToken)
    {
        // Resolve first so an unknown id is a 404, not an empty stream.
        await jobs.GetRequiredAsync(id, cancellationToken);
        await foreach (var item in jobs.WatchAsync(id, cancellationToken))
        {
            yield return item switch
            {
                JobEvent.Progress p => new SseItem<object>(p.Update, "progress"),
                JobEvent.Status s => new SseItem<object>(JobViews.ToView(s.Job, []), "status"),
                _ => throw new InvalidOperationException("Unknown job event."),
            };
        }
    }
}
