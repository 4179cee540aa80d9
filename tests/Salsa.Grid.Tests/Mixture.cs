using Salsa.Clustering;
using Salsa.Clustering.Annealing;
using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Grid.Tests;

/// <summary>A weighted 2-D mixture of a few blobs, stored as a dense dataset, and its reference result.</summary>
internal sealed class Mixture
{
    public Mixture(int points, int seed)
    {
        (Values, Weights) = WeightedBlobs.Make(points, seed);
        Count = points;
    }

    public int Count { get; }

    public double[] Values { get; }

    public double[] Weights { get; }

    public Guid Id { get; } = Guid.NewGuid();

    public DenseVectors Vectors => new(Values, 2, Weights);

    public Task StoreAsync(IDataStore store, CancellationToken cancellationToken) => store.CreateDatasetAsync(
        new DatasetInfo { Id = Id, Name = "mixture", Kind = DatasetKind.Dense, Count = Count, Dimension = 2, TotalWeight = Weights.Sum(), Created = DateTimeOffset.UtcNow },
        new DatasetContent { Values = Values, Weights = Weights }, cancellationToken);

    /// <summary>The same grid computed in this process: what the cluster must give, bit for bit.</summary>
    public AnnealingResult Reference(int partitions, AnnealingOptions options)
    {
        using var grid = new LocalPartitions(Vectors, partitions, new ParallelismOptions { Ranks = 2 });
        return DeterministicAnnealing.Run(grid, options);
    }

    /// <summary>k-means of the same grid in this process.</summary>
    public KMeansResult Reference(int partitions, KMeansOptions options)
    {
        using var grid = new LocalPartitions(Vectors, partitions, new ParallelismOptions { Ranks = 2 });
        return WeightedKMeans.Run(grid, options);
    }

    public static void AssertSameBits(KMeansResult expected, KMeansResult actual)
    {
        Assert.Equal(expected.Centres.Select(BitConverter.DoubleToInt64Bits), actual.Centres.Select(BitConverter.DoubleToInt64Bits));
        Assert.Equal(BitConverter.DoubleToInt64Bits(expected.Inertia), BitConverter.DoubleToInt64Bits(actual.Inertia));
        Assert.Equal(expected.Assignments, actual.Assignments);
        Assert.Equal(expected.RestartInertias, actual.RestartInertias);
        Assert.Equal(expected.Iterations, actual.Iterations);
        Assert.Equal(expected.BestRestart, actual.BestRestart);
    }

    public static void AssertSameBits(AnnealingResult expected, AnnealingResult actual)
    {
        Assert.Equal(expected.Clusters, actual.Clusters);
        Assert.Equal(expected.Centres.Select(BitConverter.DoubleToInt64Bits), actual.Centres.Select(BitConverter.DoubleToInt64Bits));
        Assert.Equal(BitConverter.DoubleToInt64Bits(expected.WeightedCost), BitConverter.DoubleToInt64Bits(actual.WeightedCost));
        Assert.Equal(expected.Assignments, actual.Assignments);
        Assert.Equal(expected.ClusterWeights.Select(BitConverter.DoubleToInt64Bits), actual.ClusterWeights.Select(BitConverter.DoubleToInt64Bits));
        Assert.Equal(expected.Iterations, actual.Iterations);
        Assert.Equal(expected.Trajectory, actual.Trajectory);
    }
}
