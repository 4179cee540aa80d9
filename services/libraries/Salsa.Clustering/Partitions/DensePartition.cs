using Salsa.Clustering.Annealing;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Partitions;

/// <summary>
/// One partition of a dataset computing annealing passes over its rows on this machine's cores: its
/// rows cut into blocks fixed by the pass (never by the number of ranks) and folded in block order,
/// so its sums are the same bits on any machine with any number of cores. One pass at a time.
/// </summary>
public sealed class DensePartition
{
    private readonly DenseVectors _points;
    private readonly int[] _assignments;
    private double[]? _assignedUnder;
    private bool _assignmentsAreZero = true;
    private OrderedBlockSum? _sums;
    private long _step;

    public DensePartition(DenseVectors points)
    {
        ArgumentNullException.ThrowIfNull(points);
        _points = points;
        _assignments = new int[points.Count];
    }

    public int Count => _points.Count;

    public double TotalWeight => _points.TotalWeight;

    public int Dimension => _points.Dimension;

    /// <summary>The partition's rows.</summary>
    internal DenseVectors Points => _points;

    /// <summary>The rows <c>[Start, End)</c> of partition <paramref name="index"/> of <paramref name="partitions"/> over <paramref name="points"/> points: as even as integers allow.</summary>
    public static (int Start, int End) Rows(int points, int index, int partitions)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(partitions);
        ArgumentOutOfRangeException.ThrowIfNegative(index);
        ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual(index, partitions);
        return ((int)((long)points * index / partitions), (int)((long)points * (index + 1) / partitions));
    }

    /// <summary>The partition's sums for <paramref name="pass"/> (<see cref="PartitionPass.Length"/> values).</summary>
    public double[] Run(PartitionPass pass, ParallelismOptions parallel, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(pass);
        ArgumentNullException.ThrowIfNull(parallel);
        if (pass.Dimension != _points.Dimension)
        {
            throw new ClusteringInputException($"A pass in {pass.Dimension} dimensions for points in {_points.Dimension}.", nameof(pass));
        }

        if (pass.Kind is PassKind.Lloyd or PassKind.AssignedPower)
        {
            RecallAssignments(pass.AssignedUnder, pass.Kp);
        }

        if (_sums is not { } sums || sums.Length != pass.PlanLength || sums.Plan.BlockSize != BlockPlan.For(Count, pass.PlanLength, pass.BlockSize).BlockSize)
        {
            sums = _sums = new OrderedBlockSum(BlockPlan.For(Count, pass.PlanLength, pass.BlockSize), pass.PlanLength);
        }

        var kernel = new DenseKernel(_points);
        var assignments = _assignments;
        var step = _step++;
        var result = new double[sums.Length];
        var ranks = Math.Min(parallel.Ranks, sums.Plan.Blocks);
        void Pass(int start, int end, Span<double> partial) => AnnealingPasses.Run(kernel, pass, start, end, partial, assignments);
        if (ranks == 1 || parallel.Dispatcher is null)
        {
            cancellationToken.ThrowIfCancellationRequested();
            sums.ReduceAlone(step, Pass, pass.Length, result);
        }
        else
        {
            ClusteringExecution.Run(parallel with { Ranks = ranks }, cancellationToken, comm =>
                sums.Reduce(comm, step, Pass, pass.Length, comm.Rank == 0 ? result : new double[sums.Length]));
        }

        if (pass.Kind == PassKind.Lloyd)
        {
            (_assignedUnder, _assignmentsAreZero) = (pass.Centres, false);
        }

        return result[..pass.Length];
    }

    /// <summary>Every row's nearest centre of <paramref name="pass"/> (ties to the lowest index) and its weight.</summary>
    public PartitionAssignments Assign(PartitionPass pass)
    {
        ArgumentNullException.ThrowIfNull(pass);
        var assignments = new int[Count];
        Nearest(pass.CentreSet, assignments);
        return new PartitionAssignments(assignments, (double[])_points.Weights.Clone());
    }

    /// <summary>
    /// Several partitions' sums (in partition order) added in the order of the grid's
    /// <see cref="ReductionTree"/>: the order a grid's silos add them in, whichever hold which.
    /// </summary>
    public static double[] Fold(IReadOnlyList<double[]> sums) => ReductionTree.Fold(sums);

    // The assignments a Lloyd pass counts changes against are those made under the centres it names;
    // after a move (or another job's pass) this partition's may be others, so they are remade.
    private void RecallAssignments(double[]? assignedUnder, int kp)
    {
        if (assignedUnder is null)
        {
            if (!_assignmentsAreZero)
            {
                Array.Clear(_assignments);
                (_assignedUnder, _assignmentsAreZero) = (null, true);
            }

            return;
        }

        if (_assignedUnder is not null && assignedUnder.AsSpan().SequenceEqual(_assignedUnder))
        {
            return;
        }

        var centres = new CentreSet(_points.Dimension, kp);
        centres.Set(assignedUnder, assignedUnder.Length / _points.Dimension);
        Nearest(centres, _assignments);
        (_assignedUnder, _assignmentsAreZero) = (assignedUnder, false);
    }

    private void Nearest(CentreSet centres, int[] assignments)
    {
        var kernel = new DenseKernel(_points);
        var partial = new double[new PassSums(centres.Kp, _points.Dimension).LloydLength];
        ClusteringKernels.LloydAssign(kernel, centres, 0, Count, partial, assignments, null);
    }
}
