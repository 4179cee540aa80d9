using Microsoft.AspNetCore.Http.HttpResults;
using Salsa.Hosting.Jobs;

namespace Salsa.Render;

/// <summary>REST: start a census map or a scatter plot (status, events, cancel, result and the files are under /api/jobs).</summary>
public static class RenderApi
{
    public static RouteGroupBuilder MapRenderApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/api/render").WithTags("Render");

        group.MapPost("/census-map", async Task<Accepted<JobView>> (RenderJobs jobs, CensusMapRequest request, CancellationToken cancellationToken) =>
            JobResponses.Accepted(await jobs.StartCensusMapAsync(request, cancellationToken)))
            .WithName("StartCensusMap")
            .WithSummary("Draws a succeeded annealing or k-means clustering of census-query points: 202 with the job; its artifacts are map.svg, map.png and clusters.geojson.");

        group.MapPost("/scatter", async Task<Accepted<JobView>> (RenderJobs jobs, ScatterRequest request, CancellationToken cancellationToken) =>
            JobResponses.Accepted(await jobs.StartScatterAsync(request, cancellationToken)))
            .WithName("StartScatter")
            .WithSummary("Draws a succeeded MDS embedding, optionally coloured by cluster: 202 with the job; its artifacts are scatter.svg and scatter.png.");

        group.MapPost("/molecule-grid", async Task<Accepted<JobView>> (RenderJobs jobs, MoleculeGridRequest request, CancellationToken cancellationToken) =>
            JobResponses.Accepted(await jobs.StartMoleculeGridAsync(request, cancellationToken)))
            .WithName("StartMoleculeGrid")
            .WithSummary("Draws compounds of a compounds dataset (by index, e.g. a Butina clustering's medoids) as RDKit depicts them, in a grid with their ids and sizes: 202 with the job; its artifact is molecules.svg.");

        return group;
    }
}
