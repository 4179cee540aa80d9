using System.Diagnostics;
using System.Threading.Channels;
using Salsa.Ccr;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Mds;

// Design: the ranks share the square dissimilarity matrix (each rank fills a triangle-balanced run of
// rows and their mirror, disjoint cells), and two coordinate buffers: in an iteration every rank reads
// all of `current` and writes only its own rows of `next`; the stress partials go to per-block slots of
// an OrderedBlockSum, whose barrier ends the iteration. After it nobody reads `current` any more, so the
// buffers swap roles without a second barrier. Rank 0 alone writes the start and the result, between
// barriers. The barriers are the only waits and all ranks pass the same sequence of them.
/// <summary>One SMACOF run: the shared state and the rank body.</summary>
internal sealed class SmacofRun(Dissimilarities source, SmacofOptions options, double[] weights, ChannelWriter<ClusteringProgress>? progress)
{
    /// <summary>Rows per block: a row costs O(n), so blocks are small, and fixed whatever the ranks.</summary>
    private const int RowBlockSize = 16;

    private readonly Stopwatch _clock = Stopwatch.StartNew();
    private readonly int _n = source.Count;
    private readonly int _dimensions = options.Dimensions;
    private readonly double _totalWeight = PointWeights.Total(weights);
    private float[] _square = null!;
    private BlockPlan _plan = null!;
    private OrderedBlockSum _sums = null!;
    private double[][] _x = null!;
    private double[][] _y = null!;
    private TorgersonStart? _torgerson;
    private SmacofResult? _result;

    public SmacofResult Execute(CancellationToken cancellationToken)
    {
        _square = new float[_n * _n];
        _plan = new BlockPlan(_n, RowBlockSize);
        _sums = new OrderedBlockSum(_plan, 2);
        _x = Columns();
        _y = Columns();
        if (options.Initialization == SmacofInitialization.Torgerson)
        {
            _torgerson = new TorgersonStart(_square, _n, _plan, _dimensions, options.TorgersonIterations);
        }

        ClusteringExecution.Run(options.Parallel, cancellationToken, comm => Rank(comm, cancellationToken));
        return _result!;
    }

    private void Rank(Communicator comm, CancellationToken cancellationToken)
    {
        var fillWork = WorkSplit.Prefix(_n, i => _n - i);
        var (first, end) = WorkSplit.Range(fillWork, comm.Rank, comm.Size);
        source.FillRows(_square, first, end, cancellationToken);
        comm.Barrier();
        Report(comm, "dissimilarities", 0, 0);

        _torgerson?.Run(comm, _x, (iteration, eigenvalue) => Report(comm, "initialising", iteration, eigenvalue), cancellationToken);

        if (comm.Rank == 0)
        {
            if (options.Initialization == SmacofInitialization.Random)
            {
                RandomStart();
            }

            CentreWeighted(_x);
        }

        comm.Barrier();
        Iterate(comm, cancellationToken);
    }

    private void Iterate(Communicator comm, CancellationToken cancellationToken)
    {
        var current = _x;
        var next = _y;
        var trajectory = new List<double>();
        var rawTrajectory = new List<double>();
        var total = new double[2];
        var previous = double.PositiveInfinity;
        for (var t = 0; ; t++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            var update = t < options.MaxIterations;
            Pass(comm, current, next, update, t, total, cancellationToken);

            // Every pair was met from both ends.
            var stress = total[0] / 2;
            var scale = total[1] / 2;
            if (scale == 0)
            {
                throw new ClusteringInputException("Every weighted dissimilarity is zero: there is nothing to embed.");
            }

            trajectory.Add(stress / scale);
            rawTrajectory.Add(stress);
            Report(comm, "iterating", t, stress / scale);
            var converged = stress == 0 || (t > 0 && previous - stress < options.Tolerance * previous);
            if (converged || !update)
            {
                if (comm.Rank == 0)
                {
                    _result = BuildResult(current, stress, scale, t, converged, trajectory, rawTrajectory);
                }

                return;
            }

            previous = stress;
            (current, next) = (next, current);
        }
    }

    /// <summary>Stress of <paramref name="current"/> and, when <paramref name="update"/>, its Guttman transform into <paramref name="next"/>.</summary>
    private void Pass(Communicator comm, double[][] current, double[][] next, bool update, long step, double[] total, CancellationToken cancellationToken)
    {
        double[] x2 = _dimensions == 3 ? current[2] : [];
        _sums.ForEachBlock(comm.Rank, comm.Size, step, balance: true, (b, start, end) =>
        {
            cancellationToken.ThrowIfCancellationRequested();
            var partial = _sums.Begin(b, step);
            for (var i = start; i < end; i++)
            {
                var delta = _square.AsSpan(i * _n, _n);
                var row = _dimensions == 2
                    ? SmacofKernels.Guttman<TwoDimensions>(delta, weights, current[0], current[1], x2, i)
                    : SmacofKernels.Guttman<ThreeDimensions>(delta, weights, current[0], current[1], x2, i);
                partial[0] += weights[i] * row.Stress;
                partial[1] += weights[i] * row.Scale;
                if (update)
                {
                    next[0][i] = (row.S * current[0][i] - row.T0) / _totalWeight;
                    next[1][i] = (row.S * current[1][i] - row.T1) / _totalWeight;
                    if (_dimensions == 3)
                    {
                        next[2][i] = (row.S * current[2][i] - row.T2) / _totalWeight;
                    }
                }
            }
        });

        _sums.Combine(comm, step, total);
    }

    private void RandomStart()
    {
        var random = new Random(options.Seed);
        for (var i = 0; i < _n; i++)
        {
            for (var c = 0; c < _dimensions; c++)
            {
                _x[c][i] = 2 * random.NextDouble() - 1;
            }
        }
    }

    /// <summary>Weighted mean zero: the gauge the closed-form V⁺ keeps, which the zero-weight placement relies on.</summary>
    private void CentreWeighted(double[][] x)
    {
        foreach (var column in x)
        {
            var mean = 0.0;
            for (var i = 0; i < _n; i++)
            {
                mean += weights[i] * column[i];
            }

            mean /= _totalWeight;
            for (var i = 0; i < _n; i++)
            {
                column[i] -= mean;
            }
        }
    }

    private SmacofResult BuildResult(double[][] x, double stress, double scale, int iterations, bool converged, List<double> trajectory, List<double> rawTrajectory)
    {
        var coordinates = new double[_n * _dimensions];
        for (var c = 0; c < _dimensions; c++)
        {
            var mean = x[c].Sum() / _n;
            for (var i = 0; i < _n; i++)
            {
                coordinates[i * _dimensions + c] = x[c][i] - mean;
            }
        }

        return new SmacofResult
        {
            Count = _n,
            Dimensions = _dimensions,
            Coordinates = coordinates,
            Stress = stress,
            NormalizedStress = stress / scale,
            Iterations = iterations,
            Converged = converged,
            StressTrajectory = trajectory,
            RawStressTrajectory = rawTrajectory,
            Initialization = options.Initialization,
            Elapsed = _clock.Elapsed,
        };
    }

    private double[][] Columns()
    {
        var columns = new double[_dimensions][];
        for (var c = 0; c < _dimensions; c++)
        {
            columns[c] = new double[_n];
        }

        return columns;
    }

    /// <summary>Rank 0 reports; <paramref name="objective"/> is the normalised stress (the leading eigenvalue while initialising).</summary>
    private void Report(Communicator comm, string phase, int iteration, double objective)
    {
        if (comm.Rank == 0)
        {
            progress?.TryWrite(new ClusteringProgress("smacof", phase, iteration, null, 0, objective, _clock.Elapsed));
        }
    }
}
