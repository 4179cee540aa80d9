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
internal sealed class AnnealingRun(AnnealingPoints points, AnnealingOptions options, ChannelWriter<ClusteringProgress>? progress)
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
    private sealed class Rank(AnnealingRun run, Communicator comm, CancellationToken cancellationToken)
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

        /// <summary>EM iterations at one temperature until no centre moves; returns F/W, iterations and hardness.</summary>
        private (double FreeEnergy, int Iterations, double Hardness) Converge(double temperature, int minimumIterations)
        {
            // What the next step needs is centres placed to a small fraction of the temperature's own
            // length scale √T: coarse while clusters are wide, fine once they are hard.
            var tolerance = run.Options.Tolerance * temperature;
            var k = _centres.K;
            var inverseT = 1 / temperature;
            var freeEnergy = 0.0;
            var hardness = 0.0;
            var iteration = 0;
            while (iteration < run.Options.MaxIterationsPerTemperature)
            {
                iteration++;
                _iterations++;
                cancellationToken.ThrowIfCancellationRequested();
                var sums = Sums;
                var totals = Reduce(Pass(PassKind.EStep, sums.EStepLength) with { InverseTemperature = inverseT });
                freeEnergy = -temperature * totals[sums.LogPartition] / run.TotalWeight;
                hardness = totals[sums.Hardness] / run.TotalWeight;
                _evaluated += totals[sums.Evaluated];
                _pairs += totals[sums.Pairs];

                var shift = 0.0;
                for (var c = 0; c < k; c++)
                {
                    var mass = totals[sums.Mass(c)];
                    if (mass <= 1e-300 * run.TotalWeight)
                    {
                        _logMass[c] = LogTiny;
                        continue;
                    }

                    _logMass[c] = Math.Log(mass / run.TotalWeight);
                    var moved = 0.0;
                    for (var j = 0; j < D; j++)
                    {
                        var next = totals[sums.Sum(c, j)] / mass;
                        var delta = next - _centres[c, j];
                        moved += delta * delta;
                        _centres[c, j] = next;
                    }

                    shift = Math.Max(shift, moved);
                }

                _centres.UpdateNorms();
                if (shift <= tolerance && iteration >= minimumIterations)
                {
                    break;
                }
            }

            return (freeEnergy, iteration, hardness);
        }

        /// <summary>Pairs made by the last split round, with the distance² below which they count as not separated.</summary>
        private readonly List<(int Parent, int Child, double Separation)> _splits = [];

        /// <summary>Merges split pairs that have not moved apart; true if any merged.</summary>
        private bool MergeUnseparated()
        {
            var merged = new List<(int Parent, int Child)>();
            foreach (var (parent, child, separation) in _splits)
            {
                var distance = 0.0;
                for (var j = 0; j < D; j++)
                {
                    var delta = _centres[parent, j] - _centres[child, j];
                    distance += delta * delta;
                }

                if (distance <= separation)
                {
                    merged.Add((parent, child));
                }
            }

            _splits.Clear();
            if (merged.Count == 0)
            {
                return false;
            }

            var k = _centres.K;
            var rows = _centres.ToRowMajor();
            var logMass = _logMass[..k];
            var drop = new HashSet<int>();
            foreach (var (parent, child) in merged)
            {
                var mp = Math.Exp(logMass[parent]);
                var mc = Math.Exp(logMass[child]);
                for (var j = 0; j < D; j++)
                {
                    rows[parent * D + j] = (mp * rows[parent * D + j] + mc * rows[child * D + j]) / (mp + mc);
                }

                logMass[parent] = Math.Log(mp + mc);
                drop.Add(child);
            }

            var keep = Enumerable.Range(0, k).Where(c => !drop.Contains(c)).ToArray();
            var kept = new double[keep.Length * D];
            for (var c = 0; c < keep.Length; c++)
            {
                Array.Copy(rows, keep[c] * D, kept, c * D, D);
            }

            _centres.Set(kept, keep.Length);
            Array.Fill(_logMass, double.NegativeInfinity);
            var axes = _axes[..k];
            Array.Clear(_axes);
            for (var c = 0; c < keep.Length; c++)
            {
                _logMass[c] = logMass[keep[c]];
                _axes[c] = axes[keep[c]];
            }

            return true;
        }

        /// <summary>
        /// Splits every cluster whose critical temperature 2·λmax lies above <paramref name="temperature"/>
        /// (while Kmax allows, the widest by mass first); <paramref name="nextCritical"/> is the highest
        /// critical temperature of the clusters as they were.
        /// </summary>
        private bool TrySplit(double temperature, out double nextCritical)
        {
            nextCritical = 0;
            var candidates = new List<(int Cluster, double Lambda, double[] Axis)>();
            var k = _centres.K;
            if (_points.SmallDimension)
            {
                foreach (var (cluster, lambda, axis) in ScatterEigen(temperature))
                {
                    nextCritical = Math.Max(nextCritical, 2 * lambda);
                    if (2 * lambda > temperature)
                    {
                        candidates.Add((cluster, lambda, axis));
                    }
                }
            }
            else
            {
                var eigen = ScatterEigenPower(temperature);
                for (var c = 0; c < k; c++)
                {
                    nextCritical = Math.Max(nextCritical, 2 * eigen[c].Lambda);
                    if (2 * eigen[c].Lambda > temperature)
                    {
                        candidates.Add((c, eigen[c].Lambda, eigen[c].Axis));
                    }
                }
            }

            if (candidates.Count == 0)
            {
                return false;
            }

            var rows = _centres.ToRowMajor().ToList();
            var logMass = _logMass[..k].ToList();
            // Of the clusters past their critical temperature, split first the one whose split lowers the
            // weighted cost most: its mass times its variance along the axis.
            foreach (var (cluster, lambda, axis) in candidates.OrderByDescending(c => c.Lambda * Math.Exp(_logMass[c.Cluster])).ThenBy(c => c.Cluster).Take(run.Options.MaxClusters - k))
            {

                var offset = run.Options.SplitPerturbation * Math.Sqrt(lambda);
                for (var j = 0; j < D; j++)
                {
                    var centre = rows[cluster * D + j];
                    rows[cluster * D + j] = centre + offset * axis[j];
                    rows.Add(centre - offset * axis[j]);
                }

                // Separated children sit O(σ) apart; closer than σ/2 they have not really split.
                _splits.Add((cluster, logMass.Count, 0.25 * lambda));
                logMass[cluster] -= Math.Log(2);
                logMass.Add(logMass[cluster]);
            }

            _centres.Set(rows.ToArray(), logMass.Count);
            Array.Fill(_logMass, double.NegativeInfinity);
            logMass.CopyTo(_logMass);
            return true;
        }

        /// <summary>Every cluster's full weighted scatter (few dimensions), then its largest eigenpair.</summary>
        private IEnumerable<(int Cluster, double Lambda, double[] Axis)> ScatterEigen(double temperature)
        {
            var k = _centres.K;
            var d2 = D * D;
            var inverseT = 1 / temperature;
            var sums = Sums;
            var totals = Reduce(Pass(PassKind.Scatter, sums.ScatterLength(k)) with { InverseTemperature = inverseT });

            for (var c = 0; c < k; c++)
            {
                var mass = totals[sums.Mass(c)];
                if (mass <= 0)
                {
                    continue;
                }

                var matrix = new double[d2];
                for (var e = 0; e < d2; e++)
                {
                    matrix[e] = totals[sums.Scatter(c, e)] / mass;
                }

                var (lambda, axis) = SymmetricEigen.Largest(matrix, D);
                yield return (c, lambda, axis);
            }
        }

        /// <summary>
        /// Largest eigenpair of every cluster's weighted scatter by power iteration, all clusters in
        /// each pass (many dimensions): C_k·v = Σ r (x − y)((x − y)·v) / m = (Σ r·s·x − (Σ r·s)·y) / m,
        /// s = x·v − y·v. Stops when every λ has converged or is known to exceed T/2 (it will split).
        /// </summary>
        private (double Lambda, double[] Axis)[] ScatterEigenPower(double temperature, bool stopWhenSplitting = true, int? only = null, bool assigned = false)
        {
            var k = _centres.K;
            var inverseT = double.IsPositiveInfinity(temperature) ? 0 : 1 / temperature;
            var axes = new double[k][];
            var lambdas = new double[k];
            // Each cluster's iteration is its own (a pass computes every cluster's product), so asking
            // for one cluster stops when it converges, with the same bits it would have had otherwise.
            var done = new bool[k];
            if (only is { } wanted)
            {
                Array.Fill(done, true);
                done[wanted] = false;
            }

            for (var c = 0; c < k; c++)
            {
                if (_axes[c] is { } last)
                {
                    axes[c] = (double[])last.Clone();
                    continue;
                }

                axes[c] = new double[D];
                for (var j = 0; j < D; j++)
                {
                    // A fixed, generic start (never orthogonal to a data direction in practice).
                    axes[c][j] = 1.0 + 0.001 * ((j * 7919 + c * 104729) % 101);
                }

                Normalise(axes[c]);
            }

            var vectorsT = new double[D * Kp];
            var yDotV = new double[Kp];
            var sums = Sums;
            for (var iteration = 0; iteration < MaxPowerIterations && !done.All(d => d); iteration++)
            {
                Array.Clear(yDotV);
                for (var c = 0; c < k; c++)
                {
                    for (var j = 0; j < D; j++)
                    {
                        vectorsT[sums.Product(c, j)] = axes[c][j];
                        yDotV[c] += _centres[c, j] * axes[c][j];
                    }
                }

                var totals = Reduce(assigned
                    ? Pass(PassKind.AssignedPower, sums.PowerLength) with { VectorsT = vectorsT, YDotV = yDotV, AssignedUnder = _assignedUnder, OnlyCluster = only }
                    : Pass(PassKind.ScatterPower, sums.PowerLength) with { InverseTemperature = inverseT, VectorsT = vectorsT, YDotV = yDotV });

                for (var c = 0; c < k; c++)
                {
                    if (done[c])
                    {
                        continue;
                    }

                    var mass = totals[sums.PowerMass(c)];
                    if (mass <= 0)
                    {
                        done[c] = true;
                        continue;
                    }

                    var next = new double[D];
                    for (var j = 0; j < D; j++)
                    {
                        next[j] = (totals[sums.Product(c, j)] - totals[sums.Projection(c)] * _centres[c, j]) / mass;
                    }

                    var norm = Normalise(next);
                    done[c] = Math.Abs(norm - lambdas[c]) <= PowerTolerance * Math.Max(norm, 1e-300) || (stopWhenSplitting && 2 * norm > temperature * 1.01) || norm == 0;
                    lambdas[c] = norm;
                    if (norm > 0)
                    {
                        axes[c] = next;
                    }
                }
            }

            for (var c = 0; c < k; c++)
            {
                if (lambdas[c] > 0)
                {
                    _axes[c] = (double[])axes[c].Clone();
                }
            }

            return [.. Enumerable.Range(0, k).Select(c => (lambdas[c], axes[c]))];
        }

        /// <summary>
        /// T = 0: Lloyd iterations from the annealed centres (the zero-temperature limit of DA is
        /// k-means), then split–merge moves that keep K: split the cluster with the largest cost
        /// along its principal axis, merge the pair cheapest to merge (Ward), re-run Lloyd, keep the
        /// move only if the cost falls. With a cap on K, annealing spends clusters where space is wide
        /// (the first to pass their critical temperature); the moves move some to where the weight is.
        /// Returns the final weighted cost.
        /// </summary>
        private double Refine()
        {
            var cost = Lloyd();
            cost = Polish(cost);
            Report("refined", 0, cost / run.TotalWeight);
            return cost;
        }

        private double Lloyd()
        {
            if (_points.Bounded)
            {
                return BoundedLloyd();
            }

            var k = _centres.K;
            var cost = 0.0;
            for (var iteration = 0; iteration <= run.Options.FinalRefinementIterations; iteration++)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var sums = Sums;
                var pass = Pass(PassKind.Lloyd, sums.LloydLength) with { AssignedUnder = _assignedUnder };
                var totals = Reduce(pass);
                _assignedUnder = pass.Centres;
                cost = totals[sums.Cost];
                if (iteration == run.Options.FinalRefinementIterations || (iteration > 0 && totals[sums.Changed] == 0))
                {
                    break;
                }

                LloydStep.MoveCentres(totals, _centres, out _); // an empty cluster keeps its centre
            }

            return cost;
        }

        /// <summary>
        /// <see cref="Lloyd"/> with the points' distance bounds: a pass computes only the points whose
        /// centre may have changed and adds what moved to the sums kept from the last pass. The same
        /// assignments and centres as <see cref="Lloyd"/> (the bounds skip only points a full pass would
        /// keep; fingerprints' unit weights make the sums whole numbers, exact either way); the cost
        /// follows from the sums, Σ_c Σ w·|x − y_c|² = Σ w·|x|² − 2 Σ_c y_c·S_c + Σ_c W_c·|y_c|².
        /// </summary>
        private double BoundedLloyd()
        {
            var sums = Sums;
            var k = _centres.K;
            var cost = 0.0;
            for (var iteration = 0; iteration <= run.Options.FinalRefinementIterations; iteration++)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var shifts = _running is not null && _boundsUnder is { } under && under.Length == k * D ? Shifts(under) : null;
                var pass = Pass(PassKind.BoundedLloyd, sums.BoundedLloydLength) with { Shifts = shifts };
                var totals = Reduce(pass);
                if (shifts is null)
                {
                    _running = totals[..sums.BoundedLloydLength];
                }
                else
                {
                    for (var e = 0; e < sums.BoundedLloydLength; e++)
                    {
                        _running![e] += e == sums.Cost || e == sums.Changed ? 0 : totals[e];
                    }

                    ClearEmptied(_running!);
                }

                // Kept in one buffer (a model of 1,024 × 12 is a large-object-heap array; a pass's own copy
                // each time was 98 KB of garbage per pass). Only partitions elsewhere read the centres the
                // assignments were made under, and fingerprints' bounded passes run on this machine's points.
                _boundsUnder = _boundsUnder is { } buffer && buffer.Length == k * D ? buffer : new double[k * D];
                _centres.CopyRowMajor(_boundsUnder);
                cost = ClusterCostsOfSums(_running!).Sum();
                if (iteration == run.Options.FinalRefinementIterations || (iteration > 0 && totals[sums.Changed] == 0))
                {
                    break;
                }

                LloydStep.MoveCentres(_running!, _centres, out _); // an empty cluster keeps its centre
            }

            return cost;
        }

        /// <summary>
        /// A cluster all of whose points left holds, with weights that are not whole numbers, the
        /// rounding of what was added and taken away; it is empty (its centre stays where it is).
        /// </summary>
        private void ClearEmptied(double[] sums)
        {
            var layout = Sums;
            for (var c = 0; c < _centres.K; c++)
            {
                if (sums[layout.Mass(c)] <= 1e-9 * run.TotalWeight)
                {
                    (sums[layout.Mass(c)], sums[layout.SquaredNorms(c)]) = (0, 0);
                    for (var j = 0; j < D; j++)
                    {
                        sums[layout.Sum(c, j)] = 0;
                    }
                }
            }
        }

        /// <summary>How far each centre moved from <paramref name="under"/> (row-major).</summary>
        private double[] Shifts(double[] under)
        {
            var shifts = new double[_centres.K];
            for (var c = 0; c < shifts.Length; c++)
            {
                var moved = 0.0;
                for (var j = 0; j < D; j++)
                {
                    var delta = _centres[c, j] - under[c * D + j];
                    moved += delta * delta;
                }

                shifts[c] = Math.Sqrt(moved);
            }

            return shifts;
        }

        /// <summary>Each cluster's Σ w·|x − y_c|² = Σ w·|x|² − 2 y_c·S_c + W_c·|y_c|², from the sums of its points, under the current centres.</summary>
        private double[] ClusterCostsOfSums(double[] sums)
        {
            var layout = Sums;
            var costs = new double[_centres.K];
            for (var c = 0; c < costs.Length; c++)
            {
                var cross = 0.0;
                for (var j = 0; j < D; j++)
                {
                    cross += _centres[c, j] * sums[layout.Sum(c, j)];
                }

                costs[c] = Math.Max(sums[layout.SquaredNorms(c)] - 2 * cross + sums[layout.Mass(c)] * _centres.Norms[c], 0);
            }

            return costs;
        }

        private double Polish(double cost)
        {
            var k = _centres.K;
            if (k < 3 || run.Options.SplitMergeAttempts == 0)
            {
                return cost;
            }

            var rejections = 0;
            for (var attempt = 0; attempt < run.Options.SplitMergeAttempts && rejections < MaxRejectionsInARow(k); attempt++)
            {
                cancellationToken.ThrowIfCancellationRequested();
                var (mass, clusterCost) = ClusterCosts();
                // After each rejection the next costliest cluster is split (with the cheapest merge); only
                // when every cluster has been tried are the next cheapest merges: which cluster to split
                // matters more than which pair to merge (on the 40k fingerprints this found a move 0.09 %
                // lower than trying four merges per split, in the same 24 attempts, never reached).
                var split = Enumerable.Range(0, k).OrderByDescending(c => clusterCost[c]).ThenBy(c => c)
                    .ElementAt(rejections % k);
                var pairs = new List<(double Cost, int A, int B)>();
                for (var a = 0; a < k; a++)
                {
                    for (var b = a + 1; b < k; b++)
                    {
                        if (a != split && b != split && mass[a] + mass[b] > 0)
                        {
                            pairs.Add((mass[a] * mass[b] / (mass[a] + mass[b]) * SquaredDistance(a, b), a, b));
                        }
                    }
                }

                var (_, keep, free) = pairs.OrderBy(p => p.Cost).ThenBy(p => p.A).ThenBy(p => p.B).ElementAt(Math.Min(rejections / k % 4, pairs.Count - 1));
                var (lambda, axis) = PrincipalAxis(split);
                if (lambda <= 0)
                {
                    rejections++;
                    continue;
                }

                var rows = _centres.ToRowMajor();
                var moved = (double[])rows.Clone();
                _points.SaveAssignments(comm);
                var (assignedUnder, running, boundsUnder) = (_assignedUnder, (double[]?)_running?.Clone(), (double[]?)_boundsUnder?.Clone());
                var total = mass[keep] + mass[free];
                var offset = SplitOffsetPerSigma * Math.Sqrt(lambda);
                for (var j = 0; j < D; j++)
                {
                    moved[keep * D + j] = (mass[keep] * rows[keep * D + j] + mass[free] * rows[free * D + j]) / total;
                    moved[free * D + j] = rows[split * D + j] - offset * axis[j];
                    moved[split * D + j] = rows[split * D + j] + offset * axis[j];
                }

                _centres.Set(moved, k);
                var candidate = Lloyd();
                if (candidate < cost * (1 - 1e-12))
                {
                    cost = candidate;
                    rejections = 0;
                }
                else
                {
                    _centres.Set(rows, k);
                    _points.RestoreAssignments(comm);
                    (_assignedUnder, _running, _boundsUnder) = (assignedUnder, running, boundsUnder);
                    rejections++;

                    // Each rank put back its own points; the next pass may read any rank's (balanced
                    // blocks) and, with the costs read from the sums, no pass comes between to wait for them.
                    comm.Barrier();
                }
            }

            // Ranks restored their own assignments; the result is read only once all have.
            comm.Barrier();
            return cost;
        }

        /// <summary>Weight and cost of each cluster under nearest-centre assignment.</summary>
        private (double[] Mass, double[] Cost) ClusterCosts()
        {
            if (_points.Bounded && _running is { } running && _boundsUnder is { } under && under.AsSpan().SequenceEqual(_centres.ToRowMajor()))
            {
                // The sums of the assignments made under these very centres hold it already.
                return (running[Sums.Mass(0)..Sums.Mass(_centres.K)], ClusterCostsOfSums(running));
            }

            var k = _centres.K;
            var sums = Sums;
            var totals = Reduce(Pass(PassKind.ClusterCosts, sums.ClusterCostsLength));
            return (totals[sums.Mass(0)..sums.Mass(k)], totals[sums.ClusterCost(0)..sums.ClusterCost(k)]);
        }

        /// <summary>Largest eigenpair of one cluster's scatter under (near) hard assignment.</summary>
        private (double Lambda, double[] Axis) PrincipalAxis(int cluster)
        {
            var cold = _spread * 1e-12;
            if (_points.SmallDimension)
            {
                foreach (var (c, lambda, axis) in ScatterEigen(cold))
                {
                    if (c == cluster)
                    {
                        return (lambda, axis);
                    }
                }

                return (0, new double[D]);
            }

            // The assignments are the nearest centres' (the last Lloyd pass made them under these centres).
            return ScatterEigenPower(cold, stopWhenSplitting: false, only: cluster, assigned: true)[cluster];
        }

        private double SquaredDistance(int a, int b)
        {
            var distance = 0.0;
            for (var j = 0; j < D; j++)
            {
                var delta = _centres[a, j] - _centres[b, j];
                distance += delta * delta;
            }

            return distance;
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
