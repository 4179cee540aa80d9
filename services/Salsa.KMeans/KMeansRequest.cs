using System.ComponentModel.DataAnnotations;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;
using Salsa.Hosting;
using Salsa.Hosting.Clustering;
using Salsa.Hosting.Datasets;

namespace Salsa.KMeans;

/// <summary>A k-means run of a stored dataset; unset options take the algorithm's defaults.</summary>
public sealed record KMeansRequest : IVectorClusteringRequest
{
    /// <summary>A dense or binary dataset.</summary>
    public required Guid DatasetId { get; init; }

    [Range(1, int.MaxValue)]
    public required int Clusters { get; init; }

    /// <summary>k-means++ seedings tried; the lowest inertia wins.</summary>
    [Range(1, int.MaxValue)]
    public int? Restarts { get; init; }

    [Range(1, int.MaxValue)]
    public int? MaxIterations { get; init; }

    [Range(0d, double.MaxValue)]
    public double? Tolerance { get; init; }

    public int? Seed { get; init; }

    public KMeansOptions ToOptions(ParallelismOptions parallel)
    {
        var defaults = new KMeansOptions();
        return defaults with
        {
            Clusters = Clusters,
            Restarts = Restarts ?? defaults.Restarts,
            MaxIterations = MaxIterations ?? defaults.MaxIterations,
            Tolerance = Tolerance ?? defaults.Tolerance,
            Seed = Seed ?? defaults.Seed,
            Parallel = parallel,
        };
    }

    int IVectorClusteringRequest.RequestedClusters => Clusters;

    public void Validate(int points) => ToOptions(new()).Validate(points);

    public void CheckLimits(ServiceLimits limits)
    {
        ArgumentNullException.ThrowIfNull(limits);
        limits.CheckRestarts(Restarts);
        limits.CheckIterations(MaxIterations, "maxIterations");
    }

    public static KMeansRequest From(Contracts.KMeans.StartKMeansRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        return new KMeansRequest
        {
            DatasetId = DatasetCatalog.ParseId(request.DatasetId),
            Clusters = request.Clusters,
            Restarts = request.HasRestarts ? request.Restarts : null,
            MaxIterations = request.HasMaxIterations ? request.MaxIterations : null,
            Tolerance = request.HasTolerance ? request.Tolerance : null,
            Seed = request.HasSeed ? request.Seed : null,
        };
    }
}
