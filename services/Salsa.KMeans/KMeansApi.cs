using Microsoft.AspNetCore.Http.HttpResults;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Timing;

namespace Salsa.KMeans;

/// <summary>REST: start a k-means job and read its typed result (status, events, cancel and artifacts are under /api/jobs).</summary>
public static class KMeansApi
{
    public static RouteGroupBuilder MapKMeansApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/api/kmeans").WithTags("KMeans");

        group.MapPost("/jobs", async Task<Accepted<JobView>> (KMeansJobs jobs, Contracts.KMeans.StartKMeansRequest request, CancellationToken cancellationToken) =>
            JobResponses.Accepted(await jobs.StartAsync(request, cancellationToken)))
            .WithName("StartKMeans")
            .WithSummary("Starts weighted k-means (greedy k-means++ seeding, Lloyd iterations, restarts) of a dense or binary dataset; 202 with the job.");

        group.MapGet("/jobs/{id}/result", async Task<Ok<Contracts.KMeans.KMeansResult>> (KMeansJobs jobs, HttpContext http, string id, CancellationToken cancellationToken) =>
            TypedResults.Ok(ServerTiming.Reported(http, await jobs.GetResultAsync(JobViews.ParseId(id), cancellationToken))))
            .WithName("GetKMeansResult")
            .WithSummary("The clusters (centres, weights, sizes, inertia as cost) and the restarts' inertias of a finished job — the gRPC GetResult message as JSON (409 while it runs).");

        return group;
    }
}
