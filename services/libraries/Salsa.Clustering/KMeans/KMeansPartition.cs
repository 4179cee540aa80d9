using Salsa.Clustering.Annealing;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.KMeans;

/// <summary>
/// One step of k-means++ seeding as a partition sees it: the centres chosen so far (row-major) and
/// the block layout of the run, which fixes the order its masses are added in.
/// </summary>
public sealed record KMeansSeedStep
{
    public KMeansSeedStep(double[] centres, int dimension, int planLength, int? blockSize)
    {
        ArgumentNullException.ThrowIfNull(centres);
        if (dimension < 1 || centres.Length % dimension != 0 || planLength < 1 || blockSize < 1)
        {
            throw new ClusteringInputException($"A seeding step of {centres.Length} values in {dimension} dimensions does not fit.", nameof(centres));
        }

        (Centres, Dimension, PlanLength, BlockSize) = (centres, dimension, planLength, blockSize);
    }

    /// <summary>The centres chosen so far, row-major; none before the first.</summary>
    public double[] Centres { get; }

    public int Dimension { get; }

    /// <summary>The run's Lloyd partial length (with <see cref="BlockSize"/>, what fixes a partition's blocks).</summary>
    public int PlanLength { get; }

    public int? BlockSize { get; }

    public int Chosen => Centres.Length / Dimension;
}

/// <summary>A point a partition offers: its k-means++ mass (or its share of the cost, for a repair) and its coordinates.</summary>
public sealed record KMeansCandidate(double Value, double[] Coordinates);

/// <summary>
/// One partition's part in k-means on a grid of partitions: Lloyd passes through its
/// <see cref="AnnealingPartition"/>, and the k-means++ masses, draws and repairs over its rows. Its
/// distance to the nearest centre chosen so far is kept between seeding steps (and remade when a
/// step names other centres — after a move to another silo), so a step costs one distance per row.
/// Masses are added block by block in the run's block layout: a grid of one partition draws the
/// same points as <see cref="WeightedKMeans"/> on a machine's ranks.
/// </summary>
public sealed class KMeansPartition(AnnealingPartition partition)
{
    private readonly DenseVectors _points = (partition ?? throw new ArgumentNullException(nameof(partition))).Points;
    private double[]? _nearest;
    private double[] _nearestOf = [];

    public AnnealingPartition Partition { get; } = partition;

    /// <summary>Σ w·D² over the rows (Σ w before the first centre), block by block.</summary>
    public double SeedMass(KMeansSeedStep step)
    {
        var masses = BlockMasses(step, out _);
        var total = 0.0;
        foreach (var mass in masses)
        {
            total += mass;
        }

        return total;
    }

    /// <summary>The row the draw <paramref name="target"/> (in [0, <see cref="SeedMass"/>)) falls on.</summary>
    public KMeansCandidate Pick(KMeansSeedStep step, double target)
    {
        var masses = BlockMasses(step, out var plan);
        var nearest = _nearest!;
        var first = step.Chosen == 0;
        for (var b = 0; b < plan.Blocks; b++)
        {
            if (target < masses[b] || b == plan.Blocks - 1)
            {
                var (start, end) = plan.Block(b);
                var last = start;
                for (var i = start; i < end; i++)
                {
                    var m = first ? _points.Weights[i] : _points.Weights[i] * nearest[i];
                    if (m > 0)
                    {
                        last = i;
                        if (target < m)
                        {
                            return Candidate(i, m);
                        }

                        target -= m;
                    }
                }

                return Candidate(last, 0);
            }

            target -= masses[b];
        }

        return Candidate(0, 0);
    }

    /// <summary>The row that adds most to the cost under <paramref name="centres"/> (w · distance to its nearest; the first of equals).</summary>
    public KMeansCandidate Farthest(double[] centres, int kp)
    {
        ArgumentNullException.ThrowIfNull(centres);
        var set = new CentreSet(_points.Dimension, kp);
        set.Set(centres, centres.Length / _points.Dimension);
        var nearest = new double[_points.Count];
        var partial = new double[ClusteringKernels.LloydLength(set.Kp, _points.Dimension)];
        ClusteringKernels.LloydAssign(new DenseKernel(_points), set, 0, _points.Count, partial, new int[_points.Count], nearest);
        var (best, bestValue) = (0, -1.0);
        for (var i = 0; i < nearest.Length; i++)
        {
            var value = _points.Weights[i] * nearest[i];
            if (value > bestValue)
            {
                (best, bestValue) = (i, value);
            }
        }

        return Candidate(best, bestValue);
    }

    private KMeansCandidate Candidate(int row, double value)
    {
        var coordinates = new double[_points.Dimension];
        var point = _points.Point(row);
        for (var j = 0; j < coordinates.Length; j++)
        {
            coordinates[j] = 0.0 + point[j]; // as a centre is copied on the machine: no negative zero
        }

        return new KMeansCandidate(value, coordinates);
    }

    private double[] BlockMasses(KMeansSeedStep step, out BlockPlan plan)
    {
        ArgumentNullException.ThrowIfNull(step);
        if (step.Dimension != _points.Dimension)
        {
            throw new ClusteringInputException($"A seeding step in {step.Dimension} dimensions for points in {_points.Dimension}.", nameof(step));
        }

        UpdateNearest(step.Centres);
        plan = BlockPlan.For(_points.Count, step.PlanLength, step.BlockSize);
        var masses = new double[plan.Blocks];
        var first = step.Chosen == 0;
        for (var b = 0; b < plan.Blocks; b++)
        {
            var (start, end) = plan.Block(b);
            var mass = 0.0;
            for (var i = start; i < end; i++)
            {
                mass += first ? _points.Weights[i] : _points.Weights[i] * _nearest![i];
            }

            masses[b] = mass;
        }

        return masses;
    }

    // D² ← min(D², distance to each centre not yet counted); from scratch when the step's centres do
    // not begin with those counted (another run's, or none kept after a move).
    private void UpdateNearest(double[] centres)
    {
        var d = _points.Dimension;
        if (_nearest is null || _nearestOf.Length > centres.Length || !centres.AsSpan(0, _nearestOf.Length).SequenceEqual(_nearestOf))
        {
            _nearest ??= new double[_points.Count];
            Array.Fill(_nearest, double.PositiveInfinity);
            _nearestOf = [];
        }

        var kernel = new DenseKernel(_points);
        var single = new CentreSet(d, 1);
        Span<double> distance = stackalloc double[single.Kp];
        for (var c = _nearestOf.Length / d; c < centres.Length / d; c++)
        {
            single.Set(centres.AsSpan(c * d, d), 1);
            for (var i = 0; i < _nearest.Length; i++)
            {
                kernel.SquaredDistances(i, single.Transposed, single.Norms, single.Kp, distance);
                _nearest[i] = Math.Min(_nearest[i], distance[0]);
            }
        }

        _nearestOf = centres;
    }
}
