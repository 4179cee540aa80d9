using System.Diagnostics;
using System.Threading.Channels;
using Salsa.Ccr;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;

namespace Salsa.Clustering.KMeans;

/// <summary>
/// Weighted k-means on Salsa.Ccr: greedy k-means++ seeding (the best of several draws ∝ w·D²), Lloyd iterations over
/// per-block partial sums folded in block order (the same bits for any number of ranks), restarts,
/// and repair of clusters that lose every point (re-seeded at the point farthest from its centre).
/// </summary>
public static class WeightedKMeans
{
    public static KMeansResult Run(DenseVectors points, KMeansOptions options, ChannelWriter<ClusteringProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(points);
        ArgumentNullException.ThrowIfNull(options);
        return new KMeansRun<DenseKernel>(new DenseKernel(points), options, progress).Execute(cancellationToken);
    }

    /// <summary>
    /// The same k-means over a dataset's partition grid (grains on the grid, or <see cref="LocalPartitions"/>),
    /// driven from this thread: the result depends on the grid, not on where the partitions are, and a
    /// grid of one partition gives this machine's bits. <paramref name="checkpoint"/> receives the
    /// loop's state after each Lloyd iteration; <paramref name="resumeFrom"/> continues from such a state to the same result.
    /// </summary>
    public static KMeansResult Run(
        IKMeansGrid partitions, KMeansOptions options, ChannelWriter<ClusteringProgress>? progress = null,
        KMeansCheckpoint? resumeFrom = null, Action<KMeansCheckpoint>? checkpoint = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(partitions);
        ArgumentNullException.ThrowIfNull(options);
        return new PartitionedKMeans(partitions, options, progress, cancellationToken).Run(resumeFrom, checkpoint);
    }

    /// <summary>
    /// The seeding alone (scikit-learn's <c>kmeans_plusplus</c>): the K centres, row-major, that restart 0
    /// of <see cref="Run(DenseVectors, KMeansOptions, ChannelWriter{ClusteringProgress}?, CancellationToken)"/>
    /// starts its Lloyd iterations from.
    /// </summary>
    public static double[] Seed(DenseVectors points, KMeansOptions options, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(points);
        ArgumentNullException.ThrowIfNull(options);
        return new KMeansRun<DenseKernel>(new DenseKernel(points), options, null).Execute(cancellationToken, seedOnly: true).Centres;
    }

    public static KMeansResult Run(BinaryVectors points, KMeansOptions options, ChannelWriter<ClusteringProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(points);
        ArgumentNullException.ThrowIfNull(options);
        return new KMeansRun<BinaryKernel>(new BinaryKernel(points), options, progress).Execute(cancellationToken);
    }

    public static Task<KMeansResult> RunAsync(DenseVectors points, KMeansOptions options, ChannelWriter<ClusteringProgress>? progress = null, CancellationToken cancellationToken = default) =>
        ClusteringExecution.RunAsync(() => Run(points, options, progress, cancellationToken), cancellationToken);

    public static Task<KMeansResult> RunAsync(BinaryVectors points, KMeansOptions options, ChannelWriter<ClusteringProgress>? progress = null, CancellationToken cancellationToken = default) =>
        ClusteringExecution.RunAsync(() => Run(points, options, progress, cancellationToken), cancellationToken);
}

internal sealed class KMeansRun<TKernel>(TKernel kernel, KMeansOptions options, ChannelWriter<ClusteringProgress>? progress)
    where TKernel : struct, IPointKernel
{
    private readonly int _kp = CentreSet.Pad(options.Clusters);
    private readonly int[] _assignments = new int[kernel.Count];
    private readonly double[] _nearest = new double[kernel.Count];
    private readonly Stopwatch _clock = Stopwatch.StartNew();
    private BlockPlan _plan = null!;
    private OrderedBlockSum _sums = null!;
    private double[][] _seedBlocks = null!;
    private double[] _seedRows = [];
    private KMeansResult? _result;

    private TKernel Kernel { get; } = kernel;

    private KMeansOptions Options { get; } = options;

    private ChannelWriter<ClusteringProgress>? Progress { get; } = progress;

    public KMeansResult Execute(CancellationToken cancellationToken, bool seedOnly = false)
    {
        Options.Validate(Kernel.Count);
        var lloydLength = _kp * (Kernel.Dimension + 1) + 4;
        _plan = BlockPlan.For(Kernel.Count, lloydLength, Options.Parallel.BlockSize);
        // Room for the Lloyd sums, and for one pair per block (repair).
        _sums = new OrderedBlockSum(_plan, Math.Max(lloydLength, 2 * _plan.Blocks + 2));
        var seedLength = _plan.Blocks * Options.TrialsFor(Options.Clusters);
        _seedBlocks = [new double[seedLength], new double[seedLength]];
        ClusteringExecution.Run(Options.Parallel, cancellationToken, comm => new Rank(this, comm, cancellationToken).Run(seedOnly));
        return _result!;
    }

    private sealed class Rank(KMeansRun<TKernel> run, Communicator comm, CancellationToken cancellationToken)
    {
        private readonly TKernel _kernel = run.Kernel;
        private readonly CentreSet _centres = new(run.Kernel.Dimension, run.Options.Clusters);
        private readonly double[] _total = new double[run._sums.Length];
        private long _step;
        private int _iterations;
        private int _repairs;

        /// <summary>Below this many points rank 0 seeds alone.</summary>
        private const int SeedAloneBelow = 32_768;

        private int Kp => run._kp;

        private int D => _kernel.Dimension;

        private int K => run.Options.Clusters;

        public void Run(bool seedOnly)
        {
            if (seedOnly)
            {
                Seed(new Random(run.Options.Seed));
                if (comm.Rank == 0)
                {
                    run._result = new KMeansResult
                    {
                        Clusters = K, Dimension = D, Centres = _centres.ToRowMajor(), ClusterWeights = [], ClusterSizes = [], Assignments = [],
                        Inertia = double.NaN, Iterations = 0, BestRestart = 0, RestartInertias = [], EmptyClusterRepairs = 0, Elapsed = run._clock.Elapsed,
                    };
                }

                return;
            }

            var inertias = new List<double>();
            double[]? bestCentres = null;
            int[]? bestAssignments = null;
            var bestInertia = double.PositiveInfinity;
            var bestRestart = 0;
            var bestIterations = 0;
            for (var restart = 0; restart < run.Options.Restarts; restart++)
            {
                Seed(new Random(run.Options.Seed + restart));
                var (inertia, iterations) = Lloyd(restart);
                inertias.Add(inertia);
                if (inertia < bestInertia)
                {
                    bestInertia = inertia;
                    bestRestart = restart;
                    bestIterations = iterations;
                    bestCentres = _centres.ToRowMajor();
                    bestAssignments = comm.Rank == 0 ? (int[])run._assignments.Clone() : null;
                }

                // Every rank must be done with this restart's assignments before the next overwrites them.
                comm.Barrier();
            }

            if (comm.Rank == 0)
            {
                var weights = new double[K];
                var sizes = new int[K];
                for (var i = 0; i < bestAssignments!.Length; i++)
                {
                    weights[bestAssignments[i]] += _kernel.Weight(i);
                    sizes[bestAssignments[i]]++;
                }

                run._result = new KMeansResult
                {
                    Clusters = K,
                    Dimension = D,
                    Centres = bestCentres!,
                    ClusterWeights = weights,
                    ClusterSizes = sizes,
                    Assignments = bestAssignments,
                    Inertia = bestInertia,
                    Iterations = bestIterations,
                    BestRestart = bestRestart,
                    RestartInertias = inertias,
                    EmptyClusterRepairs = _repairs,
                    Elapsed = run._clock.Elapsed,
                };
            }
        }

        /// <summary>
        /// Greedy k-means++ (Arthur and Vassilvitskii 2007, the form scikit-learn seeds with): the first
        /// centre drawn ∝ w; for each next one, <see cref="KMeansOptions.SeedingTrials"/> candidates drawn
        /// ∝ w·D² (D: distance to the nearest centre so far), and the one that leaves the lowest
        /// Σ w·min(D², d²) kept. Each rank sums its own blocks; every rank then reads all blocks' sums in
        /// block order and draws the same numbers, so all pick the same points for any number of ranks.
        /// </summary>
        private void Seed(Random random)
        {
            // Few points: two barriers per centre would cost more than the work, so rank 0 seeds alone —
            // the same blocks summed the same way, so the same bits — and the others take its centres.
            var alone = _kernel.Count < SeedAloneBelow;
            if (alone && comm.Rank != 0)
            {
                comm.Barrier();
                _centres.Set(run._seedRows, K);
                return;
            }

            var trials = run.Options.TrialsFor(K);
            var rows = new double[K * D];
            var candidateRows = new double[trials * D];
            var candidates = new CentreSet(D, trials);
            var picks = new int[trials];
            var (first, end) = alone ? (0, _kernel.Count) : run._plan.PointsOf(comm.Rank, comm.Size);
            Array.Fill(run._nearest, double.PositiveInfinity, first, end - first);
            void Blocks(Action<int, int, int> work)
            {
                if (alone)
                {
                    for (var b = 0; b < run._plan.Blocks; b++)
                    {
                        var (start, stop) = run._plan.Block(b);
                        work(b, start, stop);
                    }
                }
                else
                {
                    ForOwnBlocks(work);
                }
            }

            void Barrier()
            {
                if (!alone)
                {
                    comm.Barrier();
                }
            }

            // Before the first centre every block's mass is its weight (slot 0 of buffer 0).
            var (parity, slot) = (0, 0);
            var masses = run._seedBlocks[parity];
            Blocks((b, start, stop) => masses[b * trials] = SeedingKernels.Mass(_kernel, run._nearest, start, stop, first: true));
            Barrier();
            for (var c = 0; c < K; c++)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var draws = c == 0 ? 1 : trials;
                var total = SeedingKernels.Total(run._seedBlocks[parity], trials, slot);
                for (var t = 0; t < draws; t++)
                {
                    var (block, target) = SeedingKernels.Block(run._seedBlocks[parity], trials, slot, random.NextDouble() * total);
                    var (start, stop) = run._plan.Block(block);
                    picks[t] = SeedingKernels.Walk(_kernel, run._nearest, start, stop, c == 0, target);
                    CopyPoint(picks[t], candidateRows, t);
                }

                candidates.Set(candidateRows.AsSpan(0, draws * D), draws);

                // The other buffer: ranks still walking read this one. Own blocks only: D² is read where it is written.
                parity ^= 1;
                var potentials = run._seedBlocks[parity];
                Blocks((b, start, stop) => SeedingKernels.Potentials(_kernel, run._nearest, start, stop, candidates, potentials.AsSpan(b * trials, trials)));
                Barrier();
                slot = 0;
                var lowest = SeedingKernels.Total(potentials, trials, 0);
                for (var t = 1; t < draws; t++)
                {
                    var potential = SeedingKernels.Total(potentials, trials, t);
                    if (potential < lowest)
                    {
                        (lowest, slot) = (potential, t);
                    }
                }

                candidateRows.AsSpan(slot * D, D).CopyTo(rows.AsSpan(c * D, D));
                SeedingKernels.Update(_kernel, run._nearest, first, end, candidates, slot);

                // Every D² is current before any rank walks the next draws.
                Barrier();
            }

            _centres.Set(rows, K);
            if (alone)
            {
                run._seedRows = rows;
                comm.Barrier();
            }
        }

        private void ForOwnBlocks(Action<int, int, int> work) =>
            run._sums.ForEachBlock(comm.Rank, comm.Size, _step, balance: false, work);

        private (double Inertia, int Iterations) Lloyd(int restart)
        {
            var previous = double.PositiveInfinity;
            var inertia = 0.0;
            var iteration = 0;
            var (first, end) = run._plan.PointsOf(comm.Rank, comm.Size);
            Array.Fill(run._assignments, -1, first, end - first);
            comm.Barrier(); // cleared everywhere before a balanced pass may assign any rank's points
            while (iteration < run.Options.MaxIterations)
            {
                iteration++;
                _iterations++;
                cancellationToken.ThrowIfCancellationRequested();
                var totals = Reduce((start, end, partial) => ClusteringKernels.LloydAssign(_kernel, _centres, start, end, partial, run._assignments, run._nearest), new PassSums(Kp, D).LloydLength);
                var (changed, empty) = LloydStep.MoveCentres(totals, _centres, out inertia);
                if (comm.Rank == 0)
                {
                    run.Progress?.TryWrite(new ClusteringProgress("kmeans", $"restart {restart + 1}", _iterations, null, K, inertia, run._clock.Elapsed));
                }

                if (empty >= 0)
                {
                    Repair(empty);
                    previous = double.PositiveInfinity;
                    continue;
                }

                if (changed == 0 || previous - inertia <= run.Options.Tolerance * Math.Max(inertia, 1e-300))
                {
                    break;
                }

                previous = inertia;
            }

            return (inertia, iteration);
        }

        /// <summary>Moves an empty cluster to the point that contributes most to the inertia.</summary>
        private void Repair(int cluster)
        {
            _repairs++;
            var best = Reduce((start, end, partial) =>
            {
                var block = start / run._plan.BlockSize;
                var bestValue = -1.0;
                var bestIndex = start;
                for (var i = start; i < end; i++)
                {
                    var value = _kernel.Weight(i) * run._nearest[i];
                    if (value > bestValue)
                    {
                        bestValue = value;
                        bestIndex = i;
                    }
                }

                partial[2 * block] = bestValue;
                partial[2 * block + 1] = bestIndex;
            }, 2 * run._plan.Blocks);
            var chosen = 0;
            var value = -1.0;
            for (var b = 0; b < run._plan.Blocks; b++)
            {
                if (best[2 * b] > value)
                {
                    value = best[2 * b];
                    chosen = (int)best[2 * b + 1];
                }
            }

            var rows = _centres.ToRowMajor();
            CopyPoint(chosen, rows, cluster);
            _centres.Set(rows, K);
        }

        private void CopyPoint(int point, double[] rows, int centre)
        {
            var vectorsT = new double[D * Kp];
            Span<double> unit = stackalloc double[Kp];
            unit[0] = 1;
            _kernel.Accumulate(point, unit, vectorsT, Kp);
            for (var j = 0; j < D; j++)
            {
                rows[centre * D + j] = vectorsT[j * Kp];
            }
        }

        /// <summary>A pass over the blocks (balanced between ranks unless told not to), folded in block order.</summary>
        private double[] Reduce(BlockPass pass, int length, bool balance = true)
        {
            run._sums.Reduce(comm, _step++, pass, length, _total, balance);
            return _total;
        }
    }

}
