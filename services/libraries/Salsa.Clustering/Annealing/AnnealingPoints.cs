using Salsa.Ccr;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;

namespace Salsa.Clustering.Annealing;

/// <summary>Where the annealing loop's passes run: on this machine's ranks, or on a grid of partitions.</summary>
internal abstract class AnnealingPoints
{
    public abstract int Count { get; }

    public abstract int Dimension { get; }

    public abstract bool SmallDimension { get; }

    public abstract double TotalWeight { get; }

    /// <summary>
    /// Whether Lloyd passes may keep per-point distance bounds (<see cref="PassKind.BoundedLloyd"/>):
    /// the machine's own fingerprints, whose |x|² is exact, so the cost follows from the sums.
    /// </summary>
    public virtual bool Bounded => false;

    /// <summary>Sets the run's block layout from its largest partial.</summary>
    public abstract void Prepare(int planLength, int? blockSize);

    /// <summary>One pass, folded in block (or partition) order into <paramref name="total"/>; a collective of all ranks.</summary>
    public abstract void Reduce(Communicator comm, long step, PartitionPass pass, Span<double> total, bool balance);

    /// <summary>Keeps the current assignments aside (a split–merge move that may be undone); a collective.</summary>
    public abstract void SaveAssignments(Communicator comm);

    /// <summary>Puts back the assignments kept aside (each rank its own points).</summary>
    public abstract void RestoreAssignments(Communicator comm);

    /// <summary>Every point's cluster and weight once the run is done (rank 0, after a barrier).</summary>
    public abstract PartitionAssignments Final(PartitionPass nearest);
}

/// <summary>The points in this process, cut into blocks shared by the ranks (the single-machine run).</summary>
internal sealed class LocalPoints<TKernel>(TKernel kernel, double totalWeight, int ranks) : AnnealingPoints
    where TKernel : struct, IPointKernel
{
    private readonly int[] _assignments = new int[kernel.Count];
    private readonly int[][] _saved = new int[ranks][];
    private readonly PointBounds _bounds = new(typeof(TKernel) == typeof(BinaryKernel) ? kernel.Count : 0);
    private readonly (double[] Upper, double[] Lower)[] _savedBounds = new (double[], double[])[ranks];
    private OrderedBlockSum _sums = null!;

    public override int Count => kernel.Count;

    public override int Dimension => kernel.Dimension;

    public override bool SmallDimension => kernel.SmallDimension;

    public override double TotalWeight => totalWeight;

    public override bool Bounded => typeof(TKernel) == typeof(BinaryKernel);

    public override void Prepare(int planLength, int? blockSize) =>
        _sums = new OrderedBlockSum(BlockPlan.For(kernel.Count, planLength, blockSize), planLength);

    public override void Reduce(Communicator comm, long step, PartitionPass pass, Span<double> total, bool balance)
    {
        var k = kernel;
        var (assignments, bounds) = (_assignments, _bounds);
        _sums.Reduce(comm, step, (start, end, partial) => AnnealingPasses.Run(k, pass, start, end, partial, assignments, bounds), pass.Length, total, balance);
    }

    public override void SaveAssignments(Communicator comm)
    {
        var (first, end) = _sums.Plan.PointsOf(comm.Rank, comm.Size);
        _saved[comm.Rank] = _assignments[first..end];
        _savedBounds[comm.Rank] = Bounded ? (_bounds.Upper[first..end], _bounds.Lower[first..end]) : ([], []);
        comm.Barrier(); // every rank has saved its points before any pass (balanced: any rank's) rewrites them
    }

    public override void RestoreAssignments(Communicator comm)
    {
        var (first, _) = _sums.Plan.PointsOf(comm.Rank, comm.Size);
        _saved[comm.Rank].CopyTo(_assignments.AsSpan(first));
        if (Bounded)
        {
            _savedBounds[comm.Rank].Upper.CopyTo(_bounds.Upper.AsSpan(first));
            _savedBounds[comm.Rank].Lower.CopyTo(_bounds.Lower.AsSpan(first));
        }
    }

    public override PartitionAssignments Final(PartitionPass nearest)
    {
        var weights = new double[kernel.Count];
        for (var i = 0; i < weights.Length; i++)
        {
            weights[i] = kernel.Weight(i);
        }

        return new PartitionAssignments((int[])_assignments.Clone(), weights);
    }
}

/// <summary>
/// The points as a fixed grid of partitions somewhere else (grains on a cluster's silos, or
/// <see cref="LocalPartitions"/>): one rank drives the loop and each pass goes to every partition.
/// </summary>
internal sealed class PartitionedPoints(IPartitionGrid partitions, CancellationToken cancellationToken) : AnnealingPoints
{
    public override int Count => partitions.Count;

    public override int Dimension => partitions.Dimension;

    public override bool SmallDimension => partitions.Dimension <= DenseKernel.SmallDimensionLimit;

    public override double TotalWeight => partitions.TotalWeight;

    public override void Prepare(int planLength, int? blockSize)
    {
    }

    public override void Reduce(Communicator comm, long step, PartitionPass pass, Span<double> total, bool balance)
    {
        var sums = partitions.Reduce(pass, cancellationToken);
        total.Clear();
        sums.AsSpan(0, pass.Length).CopyTo(total);
    }

    // A partition remakes its assignments from the centres a Lloyd pass names (PartitionPass.AssignedUnder).
    public override void SaveAssignments(Communicator comm)
    {
    }

    public override void RestoreAssignments(Communicator comm)
    {
    }

    public override PartitionAssignments Final(PartitionPass nearest) => partitions.Assign(nearest, cancellationToken);
}
