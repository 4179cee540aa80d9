using Microsoft.AspNetCore.Http.HttpResults;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Timing;

namespace Salsa.Mds;

/// <summary>REST: start an MDS embedding and read its typed result (status, events, cancel and artifacts are under /api/jobs).</summary>
public static class MdsApi
{
    public static RouteGroupBuilder MapMdsApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/api/mds").WithTags("Mds");

        group.MapPost("/jobs", async Task<Accepted<JobView>> (MdsJobs jobs, Contracts.Mds.StartEmbeddingRequest request, CancellationToken cancellationToken) =>
            JobResponses.Accepted(await jobs.StartAsync(request, cancellationToken)))
            .WithName("StartEmbedding")
            .WithSummary("Starts a weighted SMACOF embedding in 2 or 3 dimensions of a dense (Euclidean) or binary (Tanimoto) dataset, or of some of its points; 202 with the job (watch it at /api/jobs/{id}/events).");

        group.MapGet("/jobs/{id}/result", async Task<Ok<Contracts.Mds.EmbeddingResult>> (MdsJobs jobs, HttpContext http, string id, CancellationToken cancellationToken) =>
            TypedResults.Ok(ServerTiming.Reported(http, await jobs.GetResultAsync(JobViews.ParseId(id), cancellationToken))))
            .WithName("GetEmbeddingResult")
            .WithSummary("Coordinates, the embedded items' dataset indices, normalised stress and its trajectory of a finished job — the gRPC GetResult message as JSON (409 while it runs).");

        return group;
    }
}
