using System.Runtime.CompilerServices;
using Salsa.Ccr;
using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Mds;

// Design: the O(n²) products B·Q are computed by rows, each row whole by the rank owning its block
// (rows written only by their owner). The O(n·p²) rest — Rayleigh–Ritz, re-orthonormalising Q — is
// done by rank 0 alone between two barriers, so every rank reads the same Q and the same stop flag.
// Nobody waits inside a lock; the barriers are the only waits, and every rank passes the same ones.
/// <summary>
/// The classical-MDS (Torgerson) start: the top eigenvectors of B = −½·J·Δ²·J by subspace iteration
/// with Rayleigh–Ritz, each scaled by √λ. The block holds two vectors more than the embedding needs,
/// so up to two negative eigenvalues of large magnitude (non-Euclidean dissimilarities) do not push a
/// wanted positive one out; the wanted ones are the largest Ritz values. Weights are not used here.
/// </summary>
internal sealed class TorgersonStart
{
    private const double ConvergenceTolerance = 1e-6;

    private readonly float[] _square;
    private readonly int _n;
    private readonly BlockPlan _plan;
    private readonly int _dimensions;
    private readonly int _maxIterations;
    private readonly int _width;
    private readonly double[] _rowMeans;
    private readonly double[][] _q;
    private readonly double[][] _z;
    private readonly double[] _columnSums;
    private readonly double[] _rowMeanDots;
    private double[] _previousValues = [];
    private double _grandMean;
    private bool _done;

    public TorgersonStart(float[] square, int n, BlockPlan plan, int dimensions, int maxIterations)
    {
        _square = square;
        _n = n;
        _plan = plan;
        _dimensions = dimensions;
        _maxIterations = maxIterations;
        _width = Math.Min(dimensions + 2, n);
        _rowMeans = new double[n];
        _q = NewColumns(_width, n);
        _z = NewColumns(_width, n);
        _columnSums = new double[_width];
        _rowMeanDots = new double[_width];
    }

    /// <summary>Largest Ritz value of the last iteration (progress).</summary>
    public double LeadingEigenvalue { get; private set; }

    /// <summary>Writes the start into <paramref name="coordinates"/> (one column per dimension) on rank 0; all ranks return after it is written.</summary>
    public void Run(Communicator comm, double[][] coordinates, Action<int, double> report, CancellationToken cancellationToken)
    {
        var (first, end) = _plan.PointsOf(comm.Rank, comm.Size);
        for (var i = first; i < end; i++)
        {
            var row = Row(i);
            var sum = 0.0;
            foreach (var d in row)
            {
                sum += (double)d * d;
            }

            _rowMeans[i] = sum / _n;
        }

        comm.Barrier();
        if (comm.Rank == 0)
        {
            _grandMean = _rowMeans.Sum() / _n;
            for (var k = 0; k < _width; k++)
            {
                for (var i = 0; i < _n; i++)
                {
                    _q[k][i] = Hash(k * (long)_n + i);
                }
            }

            Orthonormalise(_q);
            UpdateColumnSums();
        }

        comm.Barrier();
        Span<double> products = stackalloc double[_width];
        for (var iteration = 0; ; iteration++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            for (var i = first; i < end; i++)
            {
                SmacofKernels.SquaredProducts(Row(i), _q, products);
                for (var k = 0; k < _width; k++)
                {
                    _z[k][i] = -0.5 * (products[k] - _rowMeans[i] * _columnSums[k] - _rowMeanDots[k] + _grandMean * _columnSums[k]);
                }
            }

            comm.Barrier();
            if (comm.Rank == 0)
            {
                Step(iteration, coordinates);
                report(iteration, LeadingEigenvalue);
            }

            comm.Barrier();
            if (_done)
            {
                return;
            }
        }
    }

    private ReadOnlySpan<float> Row(int i) => _square.AsSpan(i * _n, _n);

    /// <summary>Rank 0: Rayleigh–Ritz on span(Q); then either the start from the Ritz pairs, or Q ← orth(B·Q).</summary>
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void Step(int iteration, double[][] coordinates)
    {
        var p = _width;
        var h = new double[p * p];
        for (var a = 0; a < p; a++)
        {
            for (var b = 0; b < p; b++)
            {
                h[a * p + b] = Dot(_q[a], _z[b]);
            }
        }

        for (var a = 0; a < p; a++)
        {
            for (var b = a + 1; b < p; b++)
            {
                h[a * p + b] = h[b * p + a] = 0.5 * (h[a * p + b] + h[b * p + a]);
            }
        }

        var (values, vectors) = SymmetricEigen.Decompose(h, p);
        LeadingEigenvalue = values[0];
        var converged = _previousValues.Length == p && Enumerable.Range(0, _dimensions)
            .All(k => Math.Abs(values[k] - _previousValues[k]) <= ConvergenceTolerance * Math.Max(Math.Abs(values[0]), 1e-300));
        _previousValues = values;
        if (converged || iteration + 1 >= _maxIterations)
        {
            Compose(values, vectors, coordinates);
            _done = true;
            return;
        }

        for (var k = 0; k < p; k++)
        {
            _z[k].CopyTo(_q[k], 0);
        }

        Orthonormalise(_q);
        UpdateColumnSums();
    }

    /// <summary>x_c = Q·u_c·√λ_c for the largest Ritz values; a non-positive one gets a small scale so no axis is flat (SMACOF could never leave it).</summary>
    private void Compose(double[] values, double[] vectors, double[][] coordinates)
    {
        var p = _width;
        var top = Math.Max(values[0], 0);
        for (var c = 0; c < _dimensions; c++)
        {
            var scale = values[c] > 1e-12 * top ? Math.Sqrt(values[c]) : top > 0 ? 1e-3 * Math.Sqrt(top) : 1;
            for (var i = 0; i < _n; i++)
            {
                var x = 0.0;
                for (var k = 0; k < p; k++)
                {
                    x += _q[k][i] * vectors[k * p + c];
                }

                coordinates[c][i] = x * scale;
            }
        }
    }

    private void UpdateColumnSums()
    {
        for (var k = 0; k < _width; k++)
        {
            _columnSums[k] = _q[k].Sum();
            _rowMeanDots[k] = Dot(_rowMeans, _q[k]);
        }
    }

    /// <summary>Modified Gram–Schmidt, twice per column; a column that vanishes (B of low rank) is replaced by a fixed pseudo-random one.</summary>
    private void Orthonormalise(double[][] columns)
    {
        for (var k = 0; k < columns.Length; k++)
        {
            for (var attempt = 0; ; attempt++)
            {
                var before = Math.Sqrt(Dot(columns[k], columns[k]));
                for (var pass = 0; pass < 2; pass++)
                {
                    for (var m = 0; m < k; m++)
                    {
                        var projection = Dot(columns[m], columns[k]);
                        for (var i = 0; i < _n; i++)
                        {
                            columns[k][i] -= projection * columns[m][i];
                        }
                    }
                }

                var norm = Math.Sqrt(Dot(columns[k], columns[k]));
                if (norm > 1e-10 * before && norm > 0)
                {
                    for (var i = 0; i < _n; i++)
                    {
                        columns[k][i] /= norm;
                    }

                    break;
                }

                for (var i = 0; i < _n; i++)
                {
                    columns[k][i] = Hash((attempt + 1L) * 1_000_003 * _width + k * (long)_n + i);
                }
            }
        }
    }

    private static double Dot(double[] a, double[] b)
    {
        var sum = 0.0;
        for (var i = 0; i < a.Length; i++)
        {
            sum += a[i] * b[i];
        }

        return sum;
    }

    /// <summary>SplitMix64 of the key, as a double in [−1, 1): a fixed start that needs no generator state.</summary>
    private static double Hash(long key)
    {
        var z = (ulong)key + 0x9E3779B97F4A7C15UL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
        z ^= z >> 31;
        return (z >> 11) * (2.0 / (1UL << 53)) - 1;
    }

    private static double[][] NewColumns(int count, int n)
    {
        var columns = new double[count][];
        for (var k = 0; k < count; k++)
        {
            columns[k] = new double[n];
        }

        return columns;
    }
}
