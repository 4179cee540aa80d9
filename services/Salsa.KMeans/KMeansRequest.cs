using System.ComponentModel.DataAnnotations;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;
using Salsa.Hosting;
using Salsa.Hosting.Clustering;
using Salsa.Hosting.Clustering.Grid;
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

/// <summary>What a k-means job returns (per-point assignments are the <c>assignments</c> artifact).</summary>
public sealed record KMeansSummary(
    string Input,
    int Points,
    int Clusters,
    int Dimension,
    double[] Centres,
    double[] ClusterWeights,
    int[] ClusterSizes,
    double Inertia,
    int Iterations,
    int BestRestart,
    IReadOnlyList<double> RestartInertias,
    int EmptyClusterRepairs,
    double ElapsedMs) : IClusteringSummary
{
    /// <summary>Where the job ran on the cluster (partitions, silos, pass costs); null when it ran in the service.</summary>
    public Placement? Placement { get; init; }

    public static KMeansSummary From(string input, int points, KMeansResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        return new(input, points, result.Clusters, result.Dimension, result.Centres, result.ClusterWeights, result.ClusterSizes, result.Inertia,
            result.Iterations, result.BestRestart, result.RestartInertias, result.EmptyClusterRepairs, result.Elapsed.TotalMilliseconds);
    }

    public Contracts.KMeans.KMeansResult ToProto()
    {
        var proto = new Contracts.KMeans.KMeansResult
        {
            Clusters = Clusters,
            Dimension = Dimension,
            Inertia = Inertia,
            Iterations = Iterations,
            BestRestart = BestRestart,
            ElapsedMs = ElapsedMs,
        };
        proto.Centres.Add(Centres);
        proto.ClusterWeights.Add(ClusterWeights);
        proto.ClusterSizes.Add(ClusterSizes);
        proto.RestartInertias.Add(RestartInertias);
        proto.Clustering = ToClustering();
        proto.Placement = Placement?.ToProto();
        return proto;
    }

    public Contracts.Common.ClusteringResult ToClustering() =>
        ClusteringResults.WithCentres("kmeans", Points, Clusters, Dimension, Centres, ClusterWeights, ClusterSizes, Inertia);
}
