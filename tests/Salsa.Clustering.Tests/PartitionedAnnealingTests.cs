using Salsa.Clustering.Annealing;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;

namespace Salsa.Clustering.Tests;

/// <summary>The annealing loop over a partition grid: the result depends on the grid, never on cores or on being resumed.</summary>
public sealed class PartitionedAnnealingTests
{
    private static readonly AnnealingOptions Options = new() { MaxClusters = 12, CoolingFactor = 0.9 };

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    [InlineData(5)]
    public void Run_SameGridAnyCores_BitIdentical(int ranks)
    {
        var points = TestData.Indiana;
        var reference = Run(points, 7, 1);

        var result = Run(points, 7, ranks);

        AssertSameBits(reference, result);
    }

    [Fact]
    public void Run_OnePartition_IsTheMachineRunBitForBit()
    {
        var points = TestData.Indiana;
        var machine = DeterministicAnnealing.Run(points, Options);

        var partitioned = Run(points, 1, 2);

        AssertSameBits(machine, partitioned);
        Assert.Equal(machine.Trajectory, partitioned.Trajectory);
        Assert.Equal(machine.ClusterSizes, partitioned.ClusterSizes);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(3)]
    [InlineData(17)]
    public void Run_ResumedFromACheckpoint_EndsWithTheSameBits(int at)
    {
        var points = TestData.Indiana;
        var checkpoints = new List<AnnealingCheckpoint>();
        AnnealingResult whole;
        using (var partitions = new LocalPartitions(points, 6, new ParallelismOptions { Ranks = 2 }))
        {
            whole = DeterministicAnnealing.Run(partitions, Options, checkpoint: checkpoints.Add);
        }

        Assert.True(checkpoints.Count > at, $"{checkpoints.Count} checkpoints");
        using var fresh = new LocalPartitions(points, 6, new ParallelismOptions { Ranks = 1 });
        var resumed = DeterministicAnnealing.Run(fresh, Options, resumeFrom: checkpoints[at]);

        AssertSameBits(whole, resumed);
        Assert.Equal(whole.Iterations, resumed.Iterations);
        Assert.Equal(whole.Trajectory, resumed.Trajectory);
    }

    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    [InlineData(-1)]
    public void Run_ManyDimensionsResumedFromACheckpoint_EndsWithTheSameBits(int at)
    {
        // 1,024 dimensions: splits are found by power iteration, which starts from each slot's last
        // axis — kept in the checkpoint, or a resumed run would start elsewhere and differ in its bits.
        var points = TestData.Ecfp(400).ToDense();
        var options = new AnnealingOptions { MaxClusters = 6, SplitMergeAttempts = 4 };
        var checkpoints = new List<AnnealingCheckpoint>();
        AnnealingResult whole;
        using (var partitions = new LocalPartitions(points, 3, new ParallelismOptions { Ranks = 2 }))
        {
            whole = DeterministicAnnealing.Run(partitions, options, checkpoint: checkpoints.Add);
        }

        var from = checkpoints[at < 0 ? ^2 : at];
        Assert.Contains(from.Axes!, axis => axis is not null);
        using var fresh = new LocalPartitions(points, 3, new ParallelismOptions { Ranks = 1 });
        var resumed = DeterministicAnnealing.Run(fresh, options, resumeFrom: from);

        AssertSameBits(whole, resumed);
        Assert.Equal(whole.Trajectory, resumed.Trajectory);
    }

    [Fact]
    public void Run_CheckpointWithAxesOfAnotherShape_IsRefused()
    {
        var points = TestData.Indiana;
        var checkpoints = new List<AnnealingCheckpoint>();
        using var partitions = new LocalPartitions(points, 4);
        DeterministicAnnealing.Run(partitions, Options with { MaxTemperatures = 3 }, checkpoint: checkpoints.Add);

        var wrong = checkpoints[^1] with { Axes = [[1, 2, 3]] };

        Assert.Throws<ClusteringInputException>(() => DeterministicAnnealing.Run(partitions, Options, resumeFrom: wrong));
    }

    [Fact]
    public void Run_CheckpointOfAnotherShape_IsRefused()
    {
        var points = TestData.Indiana;
        var checkpoints = new List<AnnealingCheckpoint>();
        using var partitions = new LocalPartitions(points, 4);
        DeterministicAnnealing.Run(partitions, Options with { MaxTemperatures = 3 }, checkpoint: checkpoints.Add);

        var wrong = checkpoints[^1] with { Centres = [1, 2, 3] };

        Assert.Throws<ClusteringInputException>(() => DeterministicAnnealing.Run(partitions, Options, resumeFrom: wrong));
    }

    [Fact]
    public void LocalPartitions_MorePartitionsThanPoints_IsRefused()
    {
        var points = new DenseVectors([0, 0, 1, 1], 2);

        Assert.Throws<ClusteringInputException>(() => new LocalPartitions(points, 3));
    }

    [Fact]
    public void Partition_AllWeightsZero_ContributesNothing()
    {
        var points = new DenseVectors([0, 0, 1, 1, 5, 5, 6, 6], 2, [0, 0, 1, 1]);
        using var partitions = new LocalPartitions(points, 2);

        var result = DeterministicAnnealing.Run(partitions, new AnnealingOptions { MaxClusters = 2 });

        Assert.Equal(2, partitions.TotalWeight);
        Assert.True(result.Centres.All(double.IsFinite));
    }

    private static AnnealingResult Run(DenseVectors points, int partitions, int ranks)
    {
        using var grid = new LocalPartitions(points, partitions, new ParallelismOptions { Ranks = ranks });
        return DeterministicAnnealing.Run(grid, Options);
    }

    internal static void AssertSameBits(AnnealingResult expected, AnnealingResult actual)
    {
        Assert.Equal(expected.Clusters, actual.Clusters);
        Assert.Equal(expected.Centres.Select(BitConverter.DoubleToInt64Bits), actual.Centres.Select(BitConverter.DoubleToInt64Bits));
        Assert.Equal(BitConverter.DoubleToInt64Bits(expected.WeightedCost), BitConverter.DoubleToInt64Bits(actual.WeightedCost));
        Assert.Equal(expected.Assignments, actual.Assignments);
        Assert.Equal(expected.ClusterWeights.Select(BitConverter.DoubleToInt64Bits), actual.ClusterWeights.Select(BitConverter.DoubleToInt64Bits));
    }
}
