using Microsoft.AspNetCore.Http.HttpResults;
using Salsa.Grid.Annealing;
using Salsa.Grid.Jobs;
using Salsa.Grid.KMeans;

namespace Salsa.Silo;

/// <summary>What a silo tells about its cluster: the members and their status, and a job's view.</summary>
public static class ClusterApi
{
    public static WebApplication MapClusterApi(this WebApplication app)
    {
        ArgumentNullException.ThrowIfNull(app);
        var group = app.MapGroup("/api/cluster").WithTags("Cluster");
        group.MapGet("/", Members).WithSummary("The cluster's silos as this one sees them");
        group.MapGet("/jobs/annealing/{id:guid}", (Guid id, IGrainFactory grains) => JobAsync(grains.GetGrain<IAnnealingJobGrain>(id), "annealing", id))
            .WithSummary("An annealing job on the cluster: status, progress, silos, partitions, pass statistics");
        group.MapGet("/jobs/kmeans/{id:guid}", (Guid id, IGrainFactory grains) => JobAsync(grains.GetGrain<IKMeansJobGrain>(id), "k-means", id))
            .WithSummary("A k-means job on the cluster: status, progress, silos, partitions, pass statistics");
        return app;
    }

    private static Ok<ClusterView> Members(IClusterMembershipService membership)
    {
        var snapshot = membership.CurrentSnapshot;
        return TypedResults.Ok(new ClusterView(
            snapshot.Version.Value,
            [.. snapshot.Members.Values.OrderBy(m => m.SiloAddress.ToString(), StringComparer.Ordinal)
                .Select(m => new SiloView(m.SiloAddress.ToString(), m.Name, m.Status.ToString()))]));
    }

    private static async Task<Results<Ok<GridJobView>, ProblemHttpResult>> JobAsync(IGridJobGrain job, string algorithm, Guid id)
    {
        var view = await job.GetAsync();
        return view.Status is null
            ? TypedResults.Problem(statusCode: StatusCodes.Status404NotFound, title: "No such job", detail: $"The cluster has no {algorithm} job {id}.")
            : TypedResults.Ok(view);
    }
}

public sealed record ClusterView(long Version, IReadOnlyList<SiloView> Silos);

public sealed record SiloView(string Address, string Name, string Status);
