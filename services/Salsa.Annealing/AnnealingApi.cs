using Microsoft.AspNetCore.Http.HttpResults;
using Salsa.Hosting.Clustering.Annealing;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Timing;

namespace Salsa.Annealing;

/// <summary>REST: start an annealing job and read its typed result (status, events, cancel and artifacts are under /api/jobs).</summary>
public static class AnnealingApi
{
    public static RouteGroupBuilder MapAnnealingApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/api/annealing").WithTags("Annealing");

        group.MapPost("/jobs", async Task<Accepted<JobView>> (AnnealingJobs jobs, Contracts.Annealing.StartAnnealingRequest request, CancellationToken cancellationToken) =>
            JobResponses.Accepted(await jobs.StartAsync(request, cancellationToken)))
            .WithName("StartAnnealing")
            .WithSummary("Starts deterministic-annealing clustering of a dense or binary dataset; 202 with the job (watch it at /api/jobs/{id}/events).");

        group.MapGet("/jobs/{id}/result", async Task<Ok<Contracts.Annealing.AnnealingResult>> (AnnealingJobs jobs, HttpContext http, string id, CancellationToken cancellationToken) =>
            TypedResults.Ok(ServerTiming.Reported(http, await jobs.GetResultAsync(JobViews.ParseId(id), cancellationToken))))
            .WithName("GetAnnealingResult")
            .WithSummary("The clusters (centres, weights, sizes, cost) and the temperature trajectory of a finished job — the gRPC GetResult message as JSON (409 while it runs).");

        return group;
    }
}
