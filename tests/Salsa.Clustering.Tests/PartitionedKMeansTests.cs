using Salsa.Clustering.KMeans;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;

namespace Salsa.Clustering.Tests;

/// <summary>k-means over a partition grid: the machine run's bits for one partition, the grid's bits for any cores, and through a resume.</summary>
public sealed class PartitionedKMeansTests
{
    private static readonly KMeansOptions Options = new() { Clusters = 12, Restarts = 3, Seed = 5 };

    [Theory]
    [InlineData(1, null)]
    [InlineData(2, null)]
    [InlineData(2, 256)]
    public void Run_OnePartition_IsTheMachineRunBitForBit(int ranks, int? blockSize)
    {
        var points = TestData.Indiana;
        var options = Options with { Parallel = new ParallelismOptions { Ranks = ranks, BlockSize = blockSize } };
        var machine = WeightedKMeans.Run(points, options);

        using var partitions = new LocalPartitions(points, 1, new ParallelismOptions { Ranks = ranks });
        var partitioned = WeightedKMeans.Run(partitions, options);

        AssertSameBits(machine, partitioned);
        Assert.Equal(machine.Iterations, partitioned.Iterations);
        Assert.Equal(machine.RestartInertias, partitioned.RestartInertias);
        Assert.Equal(machine.ClusterSizes, partitioned.ClusterSizes);
        Assert.Equal(machine.ClusterWeights, partitioned.ClusterWeights);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void Run_SameGridAnyCores_BitIdentical(int ranks)
    {
        var points = TestData.Indiana;
        KMeansResult Run(int r)
        {
            using var partitions = new LocalPartitions(points, 7, new ParallelismOptions { Ranks = r });
            return WeightedKMeans.Run(partitions, Options);
        }

        AssertSameBits(Run(1), Run(ranks));
    }

    [Fact]
    public void Run_ManyPartitions_AsGoodAsTheMachineRun()
    {
        var points = TestData.Indiana;
        var machine = WeightedKMeans.Run(points, Options);

        using var partitions = new LocalPartitions(points, 7);
        var partitioned = WeightedKMeans.Run(partitions, Options);

        // Another grid draws other seeds (the masses are added in another order), so not the same bits;
        // the same algorithm, so a cost of the same quality.
        Assert.InRange(partitioned.Inertia / machine.Inertia, 0.95, 1.05);
        Assert.Equal(points.Count, partitioned.ClusterSizes.Sum());
    }

    [Theory]
    [InlineData(0)]
    [InlineData(4)]
    [InlineData(-1)]
    public void Run_ResumedFromACheckpoint_EndsWithTheSameBits(int at)
    {
        var points = TestData.Indiana;
        var checkpoints = new List<KMeansCheckpoint>();
        KMeansResult whole;
        using (var partitions = new LocalPartitions(points, 5, new ParallelismOptions { Ranks = 2 }))
        {
            whole = WeightedKMeans.Run(partitions, Options, checkpoint: checkpoints.Add);
        }

        var from = checkpoints[at < 0 ? checkpoints.Count / 2 : at];
        using var fresh = new LocalPartitions(points, 5, new ParallelismOptions { Ranks = 1 });
        var resumed = WeightedKMeans.Run(fresh, Options, resumeFrom: from);

        AssertSameBits(whole, resumed);
        Assert.Equal(whole.RestartInertias, resumed.RestartInertias);
        Assert.Equal(whole.Iterations, resumed.Iterations);
    }

    [Fact]
    public void Run_DuplicatePoints_RepairsEmptyClustersLikeTheMachineRun()
    {
        var points = new DenseVectors([0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 5, 5, 5, 5, 9, 9], 2);
        var options = new KMeansOptions { Clusters = 5, Restarts = 4 };
        var machine = WeightedKMeans.Run(points, options);

        using var partitions = new LocalPartitions(points, 1);
        var partitioned = WeightedKMeans.Run(partitions, options);

        AssertSameBits(machine, partitioned);
        Assert.Equal(machine.EmptyClusterRepairs, partitioned.EmptyClusterRepairs);
        Assert.True(partitioned.EmptyClusterRepairs > 0);
    }

    private static void AssertSameBits(KMeansResult expected, KMeansResult actual)
    {
        Assert.Equal(expected.Centres.Select(BitConverter.DoubleToInt64Bits), actual.Centres.Select(BitConverter.DoubleToInt64Bits));
        Assert.Equal(BitConverter.DoubleToInt64Bits(expected.Inertia), BitConverter.DoubleToInt64Bits(actual.Inertia));
        Assert.Equal(expected.Assignments, actual.Assignments);
        Assert.Equal(expected.BestRestart, actual.BestRestart);
    }
}
