using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;

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
/// <see cref="DensePartition"/>, and the greedy k-means++ masses, draws, candidate potentials and
/// repairs over its rows. Its
/// distance to the nearest centre chosen so far is kept between seeding steps (and remade when a
/// step names other centres — after a move to another silo), so a step costs one distance per row.
/// Masses are added block by block in the run's block layout: a grid of one partition draws the
/// same points as <see cref="WeightedKMeans"/> on a machine's ranks.
/// </summary>
public sealed class KMeansPartition(DensePartition partition)
{
    private readonly DenseVectors _points = (partition ?? throw new ArgumentNullException(nameof(partition))).Points;
    private double[]? _nearest;
    private double[] _nearestOf = [];

    // The block masses of the last step asked for: a step asks for its mass (SeedMass) and then for
    // its draws (Pick), and both need the same pass over the rows.
    private double[]? _masses;
    private double[] _massesOf = [];
    private (int PlanLength, int? BlockSize) _massesPlan;

    public DensePartition Partition { get; } = partition;

    /// <summary>Σ w·D² over the rows (Σ w before the first centre), block by block.</summary>
    public double SeedMass(KMeansSeedStep step) => SeedingKernels.Total(BlockMasses(step, out _), 1, 0);

    /// <summary>The rows the draws <paramref name="targets"/> (each in [0, <see cref="SeedMass"/>)) fall on.</summary>
    public KMeansCandidate[] Pick(KMeansSeedStep step, double[] targets)
    {
        ArgumentNullException.ThrowIfNull(targets);
        var masses = BlockMasses(step, out var plan);
        var kernel = new DenseKernel(_points);
        var first = step.Chosen == 0;
        var picks = new KMeansCandidate[targets.Length];
        for (var t = 0; t < targets.Length; t++)
        {
            var (block, target) = SeedingKernels.Block(masses, 1, 0, targets[t]);
            var (start, end) = plan.Block(block);
            var row = SeedingKernels.Walk(kernel, _nearest!, start, end, first, target);
            picks[t] = Candidate(row, first ? _points.Weights[row] : _points.Weights[row] * _nearest![row]);
        }

        return picks;
    }

    /// <summary>
    /// For each of the candidate centres (row-major), Σ w·min(D², d²(x, candidate)) over the rows, block
    /// by block: the cost the centres of <paramref name="step"/> and that candidate would leave here.
    /// </summary>
    public double[] SeedPotentials(KMeansSeedStep step, double[] candidates)
    {
        ArgumentNullException.ThrowIfNull(candidates);
        var d = _points.Dimension;
        if (candidates.Length == 0 || candidates.Length % d != 0)
        {
            throw new ClusteringInputException($"{candidates.Length} candidate values are not whole points in {d} dimensions.", nameof(candidates));
        }

        var plan = Plan(step);
        UpdateNearest(step.Centres);
        var trials = candidates.Length / d;
        var set = new CentreSet(d, trials);
        set.Set(candidates, trials);
        var kernel = new DenseKernel(_points);
        var blocks = new double[plan.Blocks * trials];
        for (var b = 0; b < plan.Blocks; b++)
        {
            var (start, end) = plan.Block(b);
            SeedingKernels.Potentials(kernel, _nearest!, start, end, set, blocks.AsSpan(b * trials, trials));
        }

        var potentials = new double[trials];
        for (var t = 0; t < trials; t++)
        {
            potentials[t] = SeedingKernels.Total(blocks, trials, t);
        }

        return potentials;
    }

    /// <summary>The row that adds most to the cost under <paramref name="centres"/> (w · distance to its nearest; the first of equals).</summary>
    public KMeansCandidate Farthest(double[] centres, int kp)
    {
        ArgumentNullException.ThrowIfNull(centres);
        var set = new CentreSet(_points.Dimension, kp);
        set.Set(centres, centres.Length / _points.Dimension);
        var nearest = new double[_points.Count];
        var partial = new double[new PassSums(set.Kp, _points.Dimension).LloydLength];
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

    private BlockPlan Plan(KMeansSeedStep step)
    {
        ArgumentNullException.ThrowIfNull(step);
        if (step.Dimension != _points.Dimension)
        {
            throw new ClusteringInputException($"A seeding step in {step.Dimension} dimensions for points in {_points.Dimension}.", nameof(step));
        }

        return BlockPlan.For(_points.Count, step.PlanLength, step.BlockSize);
    }

    private double[] BlockMasses(KMeansSeedStep step, out BlockPlan plan)
    {
        plan = Plan(step);
        UpdateNearest(step.Centres);
        if (_masses is { } cached && _massesPlan == (step.PlanLength, step.BlockSize) && step.Centres.AsSpan().SequenceEqual(_massesOf))
        {
            return cached;
        }

        var kernel = new DenseKernel(_points);
        var masses = new double[plan.Blocks];
        for (var b = 0; b < plan.Blocks; b++)
        {
            var (start, end) = plan.Block(b);
            masses[b] = SeedingKernels.Mass(kernel, _nearest!, start, end, step.Chosen == 0);
        }

        (_masses, _massesOf, _massesPlan) = (masses, [.. step.Centres], (step.PlanLength, step.BlockSize));
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
        for (var c = _nearestOf.Length / d; c < centres.Length / d; c++)
        {
            single.Set(centres.AsSpan(c * d, d), 1);
            SeedingKernels.Update(kernel, _nearest, 0, _nearest.Length, single, 0);
        }

        _nearestOf = centres;
    }
}
