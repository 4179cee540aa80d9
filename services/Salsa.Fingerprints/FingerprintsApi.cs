using Microsoft.AspNetCore.Http.HttpResults;
using Salsa.Hosting.Jobs;
using Salsa.Hosting.Timing;

namespace Salsa.Fingerprints;

/// <summary>REST: Butina and binary-annealing jobs with their typed results, and similarity search (status, events, cancel and artifacts are under /api/jobs).</summary>
public static class FingerprintsApi
{
    public static RouteGroupBuilder MapFingerprintsApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/api/fingerprints").WithTags("Fingerprints");

        group.MapPost("/butina/jobs", async Task<Accepted<JobView>> (ButinaJobs jobs, Contracts.Fingerprints.StartButinaRequest request, CancellationToken cancellationToken) =>
            JobResponses.Accepted(await jobs.StartAsync(request, cancellationToken)))
            .WithName("StartButina")
            .WithSummary("Starts Taylor–Butina clustering of a binary dataset at a Tanimoto distance cut-off (default 0.35); 202 with the job.");

        group.MapGet("/butina/jobs/{id}/result", async Task<Ok<Contracts.Fingerprints.ButinaResult>> (ButinaJobs jobs, HttpContext http, string id, CancellationToken cancellationToken) =>
            TypedResults.Ok(ServerTiming.Reported(http, await jobs.GetResultAsync(JobViews.ParseId(id), cancellationToken))))
            .WithName("GetButinaResult")
            .WithSummary("Clusters (centroid, medoid, size, mean similarity to the centroid) and singletons of a finished Butina job — the gRPC GetButinaResult message as JSON (409 while it runs).");

        group.MapPost("/annealing/jobs", async Task<Accepted<JobView>> (BinaryAnnealingJobs jobs, Contracts.Annealing.StartAnnealingRequest request, CancellationToken cancellationToken) =>
            JobResponses.Accepted(await jobs.StartAsync(request, cancellationToken)))
            .WithName("StartBinaryAnnealing")
            .WithSummary("Starts deterministic annealing of a binary dataset (the annealing service's request and job); 202 with the job.");

        group.MapGet("/annealing/jobs/{id}/result", async Task<Ok<Contracts.Annealing.AnnealingResult>> (BinaryAnnealingJobs jobs, HttpContext http, string id, CancellationToken cancellationToken) =>
            TypedResults.Ok(ServerTiming.Reported(http, await jobs.GetResultAsync(JobViews.ParseId(id), cancellationToken))))
            .WithName("GetBinaryAnnealingResult")
            .WithSummary("Centres, cluster weights and sizes, cost and trajectory of a finished binary-annealing job — the annealing service's result (409 while it runs).");

        group.MapPost("/search", async Task<Ok<FingerprintSearchResult>> (FingerprintSearch search, FingerprintSearchRequest request, CancellationToken cancellationToken) =>
            TypedResults.Ok(await search.SearchAsync(request, cancellationToken)))
            .WithName("SearchFingerprints")
            .WithSummary("The k compounds most similar (Tanimoto) to a query of the dataset's fingerprint type, pruned through a Butina job's clusters when one is given.");

        return group;
    }
}
