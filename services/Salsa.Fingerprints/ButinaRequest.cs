using System.ComponentModel.DataAnnotations;
using System.Globalization;
using Salsa.Clustering.Fingerprints;
using Salsa.Clustering.Parallel;
using Salsa.Hosting.Clustering;
using Salsa.Hosting.Datasets;

namespace Salsa.Fingerprints;

/// <summary>A Taylor–Butina clustering of a stored fingerprint dataset.</summary>
public sealed record ButinaRequest
{
    /// <summary>A binary dataset (e.g. the fingerprints of a chem import).</summary>
    public required Guid DatasetId { get; init; }

    /// <summary>Tanimoto distance cut-off (1 − similarity), strictly between 0 and 1; default 0.35.</summary>
    [Range(0d, 1d, MinimumIsExclusive = true, MaximumIsExclusive = true)]
    public double? Cutoff { get; init; }

    public ButinaOptions ToOptions(ParallelismOptions parallel)
    {
        var defaults = new ButinaOptions();
        return defaults with { Cutoff = Cutoff ?? defaults.Cutoff, Parallel = parallel };
    }

    /// <summary>Refuses a cut-off the algorithm would refuse, before the job is accepted.</summary>
    public void Validate()
    {
        var cutoff = ToOptions(new()).Cutoff;
        if (!(cutoff > 0 && cutoff < 1))
        {
            throw new ArgumentException(string.Create(CultureInfo.InvariantCulture,
                $"The Tanimoto distance cut-off must lie strictly between 0 and 1 (0.35 is similarity ≥ 0.65); it is {cutoff}."));
        }
    }

    public static ButinaRequest From(Contracts.Fingerprints.StartButinaRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        return new ButinaRequest
        {
            DatasetId = DatasetCatalog.ParseId(request.DatasetId),
            Cutoff = request.HasCutoff ? request.Cutoff : null,
        };
    }
}

/// <summary>
/// One Butina cluster: its centroid (the compound whose neighbour list made it), its medoid, its
/// size, and the mean Tanimoto similarity of the other members to the centroid (1 for a singleton).
/// </summary>
public sealed record ButinaClusterSummary(int Centroid, int Medoid, int Size, double MeanSimilarity);

/// <summary>
/// What a Butina job returns: the clusters in the order the Butina pass made them (its per-compound
/// cluster ids are the <c>assignments</c> artifact: little-endian int32, one per compound in dataset order).
/// </summary>
public sealed record ButinaSummary(double Cutoff, int Points, int Clusters, int Singletons, IReadOnlyList<ButinaClusterSummary> Cluster, double ElapsedMs)
    : IClusteringSummary
{
    public static ButinaSummary From(int points, ButinaResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        var clusters = Enumerable.Range(0, result.Clusters)
            .Select(c => new ButinaClusterSummary(result.Centroids[c], result.Medoids[c], result.ClusterSizes[c], result.MeanSimilarityToCentroid[c]))
            .ToList();
        return new(result.Cutoff, points, result.Clusters, clusters.Count(c => c.Size == 1), clusters, result.Elapsed.TotalMilliseconds);
    }

    public Contracts.Fingerprints.ButinaResult ToProto()
    {
        var proto = new Contracts.Fingerprints.ButinaResult
        {
            Cutoff = Cutoff,
            Clusters = Clusters,
            Singletons = Singletons,
            ElapsedMs = ElapsedMs,
        };
        proto.Cluster.Add(Cluster.Select(c => new Contracts.Fingerprints.ButinaCluster
        {
            Centroid = c.Centroid,
            Medoid = c.Medoid,
            Size = c.Size,
            MeanSimilarity = c.MeanSimilarity,
        }));
        proto.Clustering = ToClustering();
        return proto;
    }

    /// <summary>Butina's clusters have no centre in a vector space: sizes, and each cluster's medoid as its representative.</summary>
    public Contracts.Common.ClusteringResult ToClustering()
    {
        var clustering = new Contracts.Common.ClusteringResult { Algorithm = "butina", Points = Points, Clusters = Clusters };
        clustering.ClusterSizes.Add(Cluster.Select(c => c.Size));
        clustering.ClusterWeights.Add(Cluster.Select(c => (double)c.Size));
        clustering.Representatives.Add(Cluster.Select(c => c.Medoid));
        return clustering;
    }
}
