using System.Diagnostics;
using System.Threading.Channels;
using Salsa.Ccr;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;

namespace Salsa.Clustering.Annealing;

/// <summary>
/// Mass-constrained deterministic annealing (Rose): weighted points, soft assignments
/// p(k|x) ∝ m_k·exp(−|x − y_k|²/T), the temperature lowered step by step; a cluster splits when T
/// falls below its critical temperature 2·λmax of its weighted scatter, along that eigenvector.
/// Runs as SPMD ranks on Salsa.Ccr: each rank owns whole blocks of points, per-block partial sums
/// are folded in block order — the same bits for any number of ranks.
/// </summary>
public static class DeterministicAnnealing
{
    public static AnnealingResult Run(DenseVectors points, AnnealingOptions options, ChannelWriter<ClusteringProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(points);
        ArgumentNullException.ThrowIfNull(options);
        return new AnnealingRun(new LocalPoints<DenseKernel>(new DenseKernel(points), points.TotalWeight, options.Parallel.Ranks), options, progress).Execute(cancellationToken);
    }

    /// <summary>
    /// The same loop over a dataset's partition grid (grains on a cluster, or <see cref="LocalPartitions"/>):
    /// one rank drives it and every pass goes to every partition. The result depends on the grid, not
    /// on where the partitions are. <paramref name="checkpoint"/> receives the loop's state at each
    /// temperature; <paramref name="resumeFrom"/> continues from such a state to the same result.
    /// </summary>
    public static AnnealingResult Run(
        IPartitionGrid partitions, AnnealingOptions options, ChannelWriter<ClusteringProgress>? progress = null,
        AnnealingCheckpoint? resumeFrom = null, Action<AnnealingCheckpoint>? checkpoint = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(partitions);
        ArgumentNullException.ThrowIfNull(options);
        var driver = options with { Parallel = new ParallelismOptions { Ranks = 1, BlockSize = options.Parallel.BlockSize } };
        return new AnnealingRun(new PartitionedPoints(partitions, cancellationToken), driver, progress) { ResumeFrom = resumeFrom, Checkpoint = checkpoint }.Execute(cancellationToken);
    }

    public static AnnealingResult Run(BinaryVectors points, AnnealingOptions options, ChannelWriter<ClusteringProgress>? progress = null, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(points);
        ArgumentNullException.ThrowIfNull(options);
        return new AnnealingRun(new LocalPoints<BinaryKernel>(new BinaryKernel(points), points.TotalWeight, options.Parallel.Ranks), options, progress).Execute(cancellationToken);
    }

    public static Task<AnnealingResult> RunAsync(DenseVectors points, AnnealingOptions options, ChannelWriter<ClusteringProgress>? progress = null, CancellationToken cancellationToken = default) =>
        ClusteringExecution.RunAsync(() => Run(points, options, progress, cancellationToken), cancellationToken);

    public static Task<AnnealingResult> RunAsync(BinaryVectors points, AnnealingOptions options, ChannelWriter<ClusteringProgress>? progress = null, CancellationToken cancellationToken = default) =>
        ClusteringExecution.RunAsync(() => Run(points, options, progress, cancellationToken), cancellationToken);
}

/// <summary>One run: the state every rank shares (read-only data, the result) and the rank body.</summary>
internal sealed partial class AnnealingRun(AnnealingPoints points, AnnealingOptions options, ChannelWriter<ClusteringProgress>? progress)
{
    private const double LogTiny = -690; // log of a mass too small to matter, never −∞

    // Children of a split start half a standard deviation either side of the parent and, below the
    // critical temperature, move apart at once; a few iterations before convergence is judged.
    private const int MinimumIterationsAfterSplit = 3;

    // Cooling goes to this fraction of the next critical temperature: far enough below it that the
    // split's children separate in a few iterations, not so far that the instability is missed.
    private const double BelowCritical = 0.9;

    // With Kmax clusters no split is left to wait for: T falls by this factor per temperature until
    // the assignments are hard.
    private const double HardeningFactor = 0.2;

    // The one-cluster solution turns unstable at T_c = 2·λ_max (λ_max the largest eigenvalue of the
    // data's weighted covariance); the run starts at 1.2·T_c, just above it, so nothing is missed
    // and no time is spent where nothing happens.
    private const double StartTemperaturePerLambda = 2.4;

    // Power iteration converges as (λ₂/λ₁)ⁿ: 60 products reach a 10⁻⁶ change for ratios up to 0.8,
    // and a cluster whose two largest eigenvalues are closer than that has no preferred axis to split along.
    private const int MaxPowerIterations = 60;

    // Power iteration stops once |Av| changes by less than this fraction. The split test needs λ to
    // a few per cent (cooling goes to BelowCritical of the next critical temperature, 2λ); in a
    // thousand binary dimensions, where the top eigenvalues lie close together, a 10⁻⁶ stop took all
    // 60 products at every temperature — 64 % of a 40,000-fingerprint run (perf), 33.6 s → 14.7 s
    // with this stop, at a cost 0.03 % lower. Census data (few dimensions) never take this path.
    private const double PowerTolerance = 1e-2;

    // Split–merge polishing tries the costliest cluster's split with the cheapest pair's merge, then
    // the next pairs (4) and the next clusters; it stops after this many rejections in a row — every
    // candidate of 4 clusters × 4 pairs, or 2 per cluster when there are fewer.
    private static int MaxRejectionsInARow(int k) => Math.Min(2 * k, 16);

    // A split cluster's children start this many standard deviations (along its principal axis)
    // either side of it: the means of a normal distribution's two halves lie ±√(2/π) ≈ 0.80 σ from its mean.
    private const double SplitOffsetPerSigma = 0.8;

    private readonly int _kp = CentreSet.Pad(options.MaxClusters);
    private readonly int _dimension = points.Dimension;
    private int _planLength;

    private AnnealingPoints Points { get; } = points;

    private double TotalWeight { get; } = points.TotalWeight;

    public AnnealingCheckpoint? ResumeFrom { get; init; }

    public Action<AnnealingCheckpoint>? Checkpoint { get; init; }

    private AnnealingOptions Options { get; } = options;

    private ChannelWriter<ClusteringProgress>? Progress { get; } = progress;
    private readonly Stopwatch _clock = Stopwatch.StartNew();
    private AnnealingResult? _result;

    public AnnealingResult Execute(CancellationToken cancellationToken)
    {
        Options.Validate(Points.Count);
        var scatterLength = Points.SmallDimension ? Options.MaxClusters * _dimension * _dimension : 0;
        _planLength = Math.Max(_kp * (_dimension + 2) + 4, scatterLength + _kp + 4);
        Points.Prepare(_planLength, Options.Parallel.BlockSize);
        ClusteringExecution.Run(Options.Parallel, cancellationToken, comm => new Rank(this, comm, cancellationToken).Run());
        return _result!;
    }

    /// <summary>One rank's view: its own copy of the centres (every rank computes the same ones).</summary>
    private sealed partial class Rank(AnnealingRun run, Communicator comm, CancellationToken cancellationToken)
    {
        private readonly AnnealingPoints _points = run.Points;
        private readonly CentreSet _centres = new(run._dimension, run.Options.MaxClusters);
        private readonly double[] _logMass = new double[run._kp];
        // Each centre slot's principal axis from its last power iteration, where the next one starts: a
        // cluster's axis turns little from one temperature (or one polish move) to the next. From a fixed
        // start the split test took 9 products per temperature on the 40k fingerprints; from the last
        // axis, 6, and the polish's 10 per move 6 (EM iterations 128 → 100, the run 15 % faster in an A/B,
        // its cost 1,172,313 → 1,172,306). A slot whose cluster changed (a split's parent, a polish move)
        // starts from an axis of another shape: any start converges, the last one only sooner.
        private readonly double[]?[] _axes = new double[]?[run._kp];
        private readonly double[] _total = new double[run._planLength];
        private readonly List<AnnealingStep> _trajectory = [];
        private long _step;
        private int _iterations;
        private double _evaluated;
        private double _pairs;
        private double _spread;
        private double[]? _assignedUnder;

        // Bounded Lloyd (fingerprints on this machine): the sums of the current assignments, kept from
        // pass to pass (a pass adds what moved); the centres the points' bounds were set under.
        private double[]? _running;
        private double[]? _boundsUnder;

        private int Kp => run._kp;

        private int D => run._dimension;

        // Where each sum sits in a pass's totals.
        private PassSums Sums => new(run._kp, run._dimension);

        public void Run()
        {
            var options = run.Options;
            double temperature, minimum;
            bool splitHere, mergedHere;
            int visited;
            if (run.ResumeFrom is { } from)
            {
                (temperature, minimum, splitHere, mergedHere, visited) = Restore(from);
            }
            else
            {
                var spread = InitialiseAtCentroid();
                _spread = spread;
                var lambda = ScatterEigenPower(double.PositiveInfinity)[0].Lambda;
                temperature = options.StartTemperature ?? Math.Max(StartTemperaturePerLambda * lambda, 1e-300);
                minimum = options.MinTemperature ?? temperature * AnnealingOptions.DefaultTemperatureRange;
                if (minimum > temperature)
                {
                    // Only a minimum given without a start can get here (Validate refuses the pair).
                    throw RequestNames.Invalid(nameof(AnnealingOptions.MinTemperature),
                        $"must not be above the start temperature, which this data set puts at {temperature:R} (just above its first critical temperature); it is {minimum:R}.");
                }

                (splitHere, mergedHere, visited) = (false, false, 1);
            }

            while (true)
            {
                if (comm.Rank == 0 && run.Checkpoint is { } save)
                {
                    save(new AnnealingCheckpoint
                    {
                        Temperature = temperature,
                        MinTemperature = minimum,
                        Spread = _spread,
                        SplitHere = splitHere,
                        MergedHere = mergedHere,
                        Visited = visited,
                        Clusters = _centres.K,
                        Centres = _centres.ToRowMajor(),
                        LogMass = (double[])_logMass.Clone(),
                        Axes = (double[]?[])_axes.Clone(), // slots are replaced, never written in place
                        Splits = [.. _splits.Select(p => new AnnealingSplit(p.Parent, p.Child, p.Separation))],
                        Trajectory = [.. _trajectory],
                        Iterations = _iterations,
                    });
                }

                // A split's children get a few iterations to move apart (or back together) before
                // convergence is judged.
                var (freeEnergy, iterations, hardness) = Converge(temperature, splitHere ? MinimumIterationsAfterSplit : 1);
                _trajectory.Add(new AnnealingStep(temperature, _centres.K, freeEnergy, iterations));
                Report("cooling", temperature, freeEnergy);

                // Children that drifted back together were split too early (T is not far enough below
                // their critical temperature): merge them and try again only after cooling.
                if (splitHere && MergeUnseparated())
                {
                    mergedHere = true;
                    (freeEnergy, iterations, hardness) = Converge(temperature, 1);
                    _trajectory[^1] = new AnnealingStep(temperature, _centres.K, freeEnergy, _trajectory[^1].Iterations + iterations);
                }

                // Every cluster past its critical temperature splits at once (the widest by mass first
                // while Kmax allows); more at this temperature while they take.
                splitHere = false;
                var nextCritical = 0.0;
                if (!mergedHere && _centres.K < options.MaxClusters && TrySplit(temperature, out nextCritical))
                {
                    splitHere = true;
                    continue;
                }

                if (temperature <= minimum || visited >= options.MaxTemperatures || (_centres.K == options.MaxClusters && hardness >= options.StopHardness))
                {
                    break;
                }

                temperature = Math.Max(NextTemperature(temperature, nextCritical, mergedHere), minimum);
                visited++;
                mergedHere = false;
            }

            var cost = Refine();
            if (comm.Rank == 0)
            {
                run._result = BuildResult(cost);
            }
        }

        /// <summary>
        /// The next temperature: a cooling step, or straight to just below the next critical temperature
        /// when that lies further down (nothing happens between, so no step is spent there). After a merge
        /// the same step as ever, so the pair is tried again a little cooler; with Kmax clusters, faster
        /// cooling until the assignments are hard.
        /// </summary>
        private double NextTemperature(double temperature, double nextCritical, bool mergedHere)
        {
            if (run.Options.FixedCooling)
            {
                return temperature * run.Options.CoolingFactor;
            }

            if (_centres.K == run.Options.MaxClusters)
            {
                return temperature * HardeningFactor;
            }

            var cooled = temperature * run.Options.CoolingFactor;
            return mergedHere ? cooled : Math.Min(cooled, BelowCritical * nextCritical);
        }

        /// <summary>The loop's state as a checkpoint left it.</summary>
        private (double Temperature, double Minimum, bool SplitHere, bool MergedHere, int Visited) Restore(AnnealingCheckpoint from)
        {
            if (from.Centres.Length != from.Clusters * D || from.LogMass.Length != Kp || from.Clusters > run.Options.MaxClusters)
            {
                throw new ClusteringInputException($"The checkpoint holds {from.Clusters} centres in {from.Centres.Length / Math.Max(from.Clusters, 1)} dimensions; this run has {D} dimensions and at most {run.Options.MaxClusters} clusters.", nameof(from));
            }

            if (from.Axes is { } axes && (axes.Length != Kp || axes.Any(a => a is not null && a.Length != D)))
            {
                throw new ClusteringInputException($"The checkpoint's principal axes are not {Kp} slots of {D} dimensions.", nameof(from));
            }

            _centres.Set(from.Centres, from.Clusters);
            from.LogMass.CopyTo(_logMass, 0);
            from.Axes?.CopyTo(_axes, 0);
            _splits.AddRange(from.Splits.Select(s => (s.Parent, s.Child, s.Separation)));
            _trajectory.AddRange(from.Trajectory);
            (_iterations, _spread) = (from.Iterations, from.Spread);
            return (from.Temperature, from.MinTemperature, from.SplitHere, from.MergedHere, from.Visited);
        }

        /// <summary>One cluster at the weighted centroid; returns the data's spread (trace of its covariance).</summary>
        private double InitialiseAtCentroid()
        {
            var sums = Reduce(Pass(PassKind.Centroid, D + 1));
            var centroid = new double[D];
            for (var j = 0; j < D; j++)
            {
                centroid[j] = sums[j] / sums[D];
            }

            _centres.Set(centroid, 1);
            Array.Fill(_logMass, double.NegativeInfinity);
            _logMass[0] = 0;

            var spread = Reduce(Pass(PassKind.Spread, 1))[0];
            return spread / run.TotalWeight;
        }

        /// <summary>A pass over all points (balanced between ranks), folded in block and partition order.</summary>
        private double[] Reduce(PartitionPass pass)
        {
            _points.Reduce(comm, _step++, pass, _total, balance: true);
            return _total;
        }

        /// <summary>A pass over the current centres and log masses.</summary>
        private PartitionPass Pass(PassKind kind, int length) =>
            new(kind, length, run._planLength, run.Options.Parallel.BlockSize, _centres, _logMass);

        private void Report(string phase, double temperature, double objective)
        {
            if (comm.Rank == 0)
            {
                run.Progress?.TryWrite(new ClusteringProgress("annealing", phase, _iterations, temperature, _centres.K, objective, run._clock.Elapsed));
            }
        }

        private AnnealingResult BuildResult(double cost)
        {
            var k = _centres.K;
            var weights = new double[k];
            var sizes = new int[k];
            var final = _points.Final(Pass(PassKind.Lloyd, Sums.LloydLength));
            for (var i = 0; i < final.Assignments.Length; i++)
            {
                weights[final.Assignments[i]] += final.Weights[i];
                sizes[final.Assignments[i]]++;
            }

            return new AnnealingResult
            {
                Clusters = k,
                Dimension = D,
                Centres = _centres.ToRowMajor(),
                ClusterWeights = weights,
                ClusterSizes = sizes,
                Assignments = final.Assignments,
                WeightedCost = cost,
                Trajectory = _trajectory,
                Iterations = _iterations,
                EvaluatedShare = _pairs > 0 ? _evaluated / _pairs : 1,
                Elapsed = run._clock.Elapsed,
            };
        }

        private static double Normalise(double[] vector)
        {
            var norm = Math.Sqrt(vector.Sum(v => v * v));
            if (norm > 0)
            {
                for (var j = 0; j < vector.Length; j++)
                {
                    vector[j] /= norm;
                }
            }

            return norm;
        }
    }

}
