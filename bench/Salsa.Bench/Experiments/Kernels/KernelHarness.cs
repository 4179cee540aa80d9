using System.Diagnostics;
using Salsa.Ccr;
using Salsa.Clustering;
using Salsa.Clustering.Parallel;

namespace Salsa.Bench.Experiments.Kernels;

/// <summary>Which inner loop to time.</summary>
public enum KernelKind
{
    /// <summary>The annealing E-step (distances, log-sum-exp, soft accumulation).</summary>
    Annealing,

    /// <summary>The k-means assignment (distances, nearest centre, hard accumulation).</summary>
    Lloyd,
}

/// <summary>Per-rank compute times of a run of loosely synchronous kernel steps.</summary>
public sealed record KernelTimings(double[][] ComputeSeconds, double WallSeconds, int Iterations)
{
    /// <summary>Mean compute time of one rank in one step.</summary>
    public double MeanCompute => ComputeSeconds.SelectMany(r => r).Average();

    public double WallPerIteration => WallSeconds / Iterations;
}

/// <summary>
/// Runs Salsa.Clustering's own kernels (the code the algorithms run) as SPMD ranks: each step,
/// every rank computes its blocks, then the ranks synchronise — folding the partial sums in block
/// order (the algorithms' reduction) or only meeting at a barrier.
/// </summary>
internal sealed class KernelHarness<TKernel>
    where TKernel : struct, IPointKernel
{
    private readonly TKernel _kernel;
    private readonly KernelKind _kind;
    private readonly CentreSet _centres;
    private readonly double[] _logMass;
    private readonly double _inverseT;
    private readonly int? _blockSize;

    public KernelHarness(TKernel kernel, KernelKind kind, int clusters, int? blockSize = null)
    {
        _kernel = kernel;
        _kind = kind;
        _blockSize = blockSize;
        _centres = new CentreSet(kernel.Dimension, clusters);

        // Centres at evenly spaced data points; a temperature at which assignments are still soft.
        var rows = new double[clusters * kernel.Dimension];
        var probe = new CentreSet(kernel.Dimension, 1);
        Span<double> unit = stackalloc double[probe.Kp];
        unit[0] = 1;
        for (var c = 0; c < clusters; c++)
        {
            var point = (int)((long)c * kernel.Count / clusters);
            var column = new double[kernel.Dimension * probe.Kp];
            kernel.Accumulate(point, unit, column, probe.Kp);
            for (var j = 0; j < kernel.Dimension; j++)
            {
                rows[c * kernel.Dimension + j] = column[j * probe.Kp];
            }
        }

        _centres.Set(rows, clusters);
        _logMass = new double[_centres.Kp];
        Array.Fill(_logMass, double.NegativeInfinity);
        for (var c = 0; c < clusters; c++)
        {
            _logMass[c] = -Math.Log(clusters);
        }

        Span<double> distance = stackalloc double[_centres.Kp];
        var mean = 0.0;
        var samples = Math.Min(kernel.Count, 1000);
        for (var i = 0; i < samples; i++)
        {
            kernel.SquaredDistances(i * (kernel.Count / samples), _centres.Transposed, _centres.Norms, _centres.Kp, distance);
            mean += distance[..clusters].ToArray().Average();
        }

        _inverseT = 1 / Math.Max(mean / samples, 1e-9);
    }

    /// <summary>
    /// Writes the C reference's input (bench/peers/kernels.c): the same points, weights, centres,
    /// log masses and temperature this harness uses.
    /// </summary>
    public void WriteReferenceInput(string path, DenseVectors points)
    {
        using var writer = new BinaryWriter(File.Create(path));
        writer.Write(points.Count);
        writer.Write(points.Dimension);
        writer.Write(_centres.K);
        writer.Write(_inverseT);
        foreach (var v in points.Values)
        {
            writer.Write(v);
        }

        foreach (var w in points.Weights)
        {
            writer.Write(w);
        }

        foreach (var c in _centres.ToRowMajor())
        {
            writer.Write(c);
        }

        for (var k = 0; k < _centres.K; k++)
        {
            writer.Write(_logMass[k]);
        }
    }

    /// <summary>Work items per step: points × centres × dimensions.</summary>
    public double PointCentreDimensions => (double)_kernel.Count * _centres.K * _kernel.Dimension;

    /// <summary>
    /// <paramref name="iterations"/> steps of the kernel on <paramref name="ranks"/> ranks. With
    /// <paramref name="balance"/> ranks take unstarted blocks from each other, as the algorithms do;
    /// without, each computes exactly its own share (the paper's static decomposition).
    /// </summary>
    public KernelTimings Run(Dispatcher dispatcher, int ranks, int iterations, bool reduce, bool balance = false)
    {
        var length = _kind == KernelKind.Annealing ? new PassSums(_centres.Kp, _kernel.Dimension).EStepLength : new PassSums(_centres.Kp, _kernel.Dimension).LloydLength;
        var plan = BlockPlan.For(_kernel.Count, length, _blockSize);
        var sums = new OrderedBlockSum(plan, length);
        var assignments = new int[_kernel.Count];
        var compute = Enumerable.Range(0, ranks).Select(_ => new double[iterations]).ToArray();
        var start = Stopwatch.GetTimestamp();
        Spmd.Run(ranks, comm =>
        {
            var kernel = _kernel;
            var total = new double[length];
            var times = compute[comm.Rank];
            comm.Barrier();
            for (var step = 0; step < iterations; step++)
            {
                var t0 = Stopwatch.GetTimestamp();
                sums.ForEachBlock(comm.Rank, comm.Size, step, balance, (b, s, e) =>
                {
                    var partial = sums.Begin(b, step);
                    if (_kind == KernelKind.Annealing)
                    {
                        ClusteringKernels.AnnealingEStep(kernel, _centres, _logMass, _inverseT, s, e, partial);
                    }
                    else
                    {
                        ClusteringKernels.LloydAssign(kernel, _centres, s, e, partial, assignments, null);
                    }
                });

                times[step] = Stopwatch.GetElapsedTime(t0).TotalSeconds;
                if (reduce)
                {
                    sums.Combine(comm, step, total);
                }
                else
                {
                    comm.Barrier();
                }
            }
        }, new SpmdOptions { Dispatcher = dispatcher });
        return new KernelTimings(compute, Stopwatch.GetElapsedTime(start).TotalSeconds, iterations);
    }

    /// <summary>Steps that take about <paramref name="seconds"/>, from one pilot step.</summary>
    public int IterationsFor(Dispatcher dispatcher, int ranks, double seconds, int minimum = 3, int maximum = 100_000)
    {
        var pilot = Run(dispatcher, ranks, 2, reduce: true);
        return (int)Math.Clamp(seconds / Math.Max(pilot.WallPerIteration, 1e-7), minimum, maximum);
    }
}

/// <summary>Data sets for the kernel experiments.</summary>
internal static class KernelData
{
    /// <summary>Uniform 2-D points in the unit square, weight 1 (the seed's synthetic kernel runs).</summary>
    public static DenseVectors Uniform(int count, int dimension = 2, int seed = 2009)
    {
        var random = new Random(seed);
        var values = new double[count * dimension];
        for (var i = 0; i < values.Length; i++)
        {
            values[i] = random.NextDouble();
        }

        return new DenseVectors(values, dimension);
    }

    /// <summary>A prefix of points in a fixed shuffled order (so every prefix spans the whole set).</summary>
    public static DenseVectors Prefix(DenseVectors points, int count, int seed = 17)
    {
        var order = Enumerable.Range(0, points.Count).ToArray();
        new Random(seed).Shuffle(order);
        var values = new double[count * points.Dimension];
        var weights = new double[count];
        for (var i = 0; i < count; i++)
        {
            points.Point(order[i]).CopyTo(values.AsSpan(i * points.Dimension));
            weights[i] = Math.Max(points.Weights[order[i]], 1e-9);
        }

        return new DenseVectors(values, points.Dimension, weights);
    }

    public static BinaryVectors Prefix(BinaryVectors points, int count, int seed = 17)
    {
        var order = Enumerable.Range(0, points.Count).ToArray();
        new Random(seed).Shuffle(order);
        var words = new ulong[count * points.Words];
        for (var i = 0; i < count; i++)
        {
            points.Fingerprint(order[i]).CopyTo(words.AsSpan(i * points.Words));
        }

        return new BinaryVectors(words, points.Bits);
    }

    /// <summary>A census file (by default the national set), population-weighted, in planar km.</summary>
    public static DenseVectors Census(string? path = null, bool skipUnpopulated = false)
    {
        var rows = Salsa.DataFiles.CensusBlockGroups.ReadFile(path ?? Salsa.DataFiles.CensusBlockGroups.NationalPath);
        if (skipUnpopulated)
        {
            rows = [.. rows.Where(r => r.Population > 0)];
        }

        var projection = Salsa.DataFiles.EquirectangularProjection.CentredOn(rows);
        var values = new double[rows.Count * 2];
        var weights = new double[rows.Count];
        for (var i = 0; i < rows.Count; i++)
        {
            (values[2 * i], values[2 * i + 1]) = projection.Forward(rows[i].Latitude, rows[i].Longitude);
            weights[i] = rows[i].Population;
        }

        return new DenseVectors(values, 2, weights);
    }

    /// <summary>The 40k compounds' ECFP4 fingerprints.</summary>
    public static BinaryVectors Fingerprints()
    {
        var set = Salsa.DataFiles.CompoundSet.ReadFile(Salsa.DataFiles.CompoundSet.Subset40kPath);
        return new BinaryVectors(set.Fingerprints[Salsa.DataFiles.FingerprintType.Ecfp4], Salsa.DataFiles.FingerprintType.Ecfp4.Bits);
    }
}
