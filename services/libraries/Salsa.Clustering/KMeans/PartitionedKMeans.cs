using System.Diagnostics;
using System.Threading.Channels;
using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;

namespace Salsa.Clustering.KMeans;

/// <summary>
/// A dataset as a fixed grid of partitions that take part in k-means (grains on a cluster's silos,
/// or <see cref="LocalPartitions"/>): Lloyd passes folded in partition order, and the k-means++
/// masses, draws and repairs partition by partition.
/// </summary>
public interface IKMeansGrid : IPartitionGrid
{
    /// <summary>Every partition's Σ w·D² for <paramref name="seeding"/>, in partition order.</summary>
    double[] SeedMasses(KMeansSeedStep seeding, CancellationToken cancellationToken);

    /// <summary>The points the draws <paramref name="targets"/> fall on in partition <paramref name="partition"/>.</summary>
    KMeansCandidate[] Pick(int partition, KMeansSeedStep seeding, double[] targets, CancellationToken cancellationToken);

    /// <summary>
    /// Every partition's Σ w·min(D², d²(x, candidate)) for each candidate centre (row-major) after the
    /// centres of <paramref name="seeding"/>, in partition order.
    /// </summary>
    double[][] SeedPotentials(KMeansSeedStep seeding, double[] candidates, CancellationToken cancellationToken);

    /// <summary>Every partition's row that adds most to the cost under <paramref name="centres"/>, in partition order.</summary>
    KMeansCandidate[] Farthest(double[] centres, int kp, CancellationToken cancellationToken);
}

/// <summary>
/// The k-means loop's whole state after a Lloyd iteration (or at the start of a restart): a run
/// resumed from it takes the same steps and ends with the same bits as one that never stopped.
/// </summary>
public sealed record KMeansCheckpoint
{
    /// <summary>The restart in progress.</summary>
    public required int Restart { get; init; }

    /// <summary>Lloyd iterations of this restart so far (0: the restart is still to be seeded).</summary>
    public required int Iteration { get; init; }

    /// <summary>Lloyd iterations of all restarts so far.</summary>
    public required int TotalIterations { get; init; }

    public required int Repairs { get; init; }

    /// <summary>The centres the next iteration starts from, row-major.</summary>
    public double[]? Centres { get; init; }

    /// <summary>The centres the latest iteration assigned the points under.</summary>
    public double[]? AssignedUnder { get; init; }

    /// <summary>The previous iteration's inertia (∞ after a repair or before the first).</summary>
    public required double Previous { get; init; }

    /// <summary>The latest iteration's inertia.</summary>
    public double Inertia { get; init; }

    public required double[] RestartInertias { get; init; }

    public double[]? BestCentres { get; init; }

    public double[]? BestAssignedUnder { get; init; }

    public required double BestInertia { get; init; }

    public required int BestRestart { get; init; }

    public required int BestIterations { get; init; }
}

/// <summary>
/// k-means driven from one thread over a partition grid: the steps of <see cref="WeightedKMeans"/>
/// (k-means++ seeding ∝ w·D², Lloyd iterations, the same convergence test and repair of empty
/// clusters) with each pass sent to every partition. The result depends on the grid and the options,
/// never on where the partitions are; a grid of one partition gives the bits of the machine run.
/// </summary>
internal sealed class PartitionedKMeans(IKMeansGrid partitions, KMeansOptions options, ChannelWriter<ClusteringProgress>? progress, CancellationToken cancellationToken)
{
    private readonly int _kp = CentreSet.Pad(options.Clusters);
    private readonly int _d = partitions.Dimension;
    private readonly Stopwatch _clock = Stopwatch.StartNew();

    private int K => options.Clusters;

    private int PlanLength => _kp * (_d + 1) + 4; // as the machine run's, so a partition's blocks are its blocks

    public KMeansResult Run(KMeansCheckpoint? resumeFrom, Action<KMeansCheckpoint>? checkpoint)
    {
        options.Validate(partitions.Count);
        var state = resumeFrom ?? new KMeansCheckpoint
        {
            Restart = 0, Iteration = 0, TotalIterations = 0, Repairs = 0, Previous = double.PositiveInfinity,
            RestartInertias = [], BestInertia = double.PositiveInfinity, BestRestart = 0, BestIterations = 0,
        };
        while (state.Restart < options.Restarts)
        {
            state = Restart(state, checkpoint);
            checkpoint?.Invoke(state);
        }

        var final = partitions.Assign(LloydPass(state.BestAssignedUnder!, null), cancellationToken);
        var weights = new double[K];
        var sizes = new int[K];
        for (var i = 0; i < final.Assignments.Length; i++)
        {
            weights[final.Assignments[i]] += final.Weights[i];
            sizes[final.Assignments[i]]++;
        }

        return new KMeansResult
        {
            Clusters = K,
            Dimension = _d,
            Centres = state.BestCentres!,
            ClusterWeights = weights,
            ClusterSizes = sizes,
            Assignments = final.Assignments,
            Inertia = state.BestInertia,
            Iterations = state.BestIterations,
            BestRestart = state.BestRestart,
            RestartInertias = state.RestartInertias,
            EmptyClusterRepairs = state.Repairs,
            Elapsed = _clock.Elapsed,
        };
    }

    /// <summary>One restart from <paramref name="at"/> (its start, or a checkpoint inside it) to its end; returns the state at the next restart.</summary>
    private KMeansCheckpoint Restart(KMeansCheckpoint at, Action<KMeansCheckpoint>? checkpoint)
    {
        var centres = new CentreSet(_d, K);
        centres.Set(at.Iteration == 0 ? Seed(new Random(options.Seed + at.Restart)) : at.Centres, K);
        var (iteration, total, repairs, previous, assignedUnder) = (at.Iteration, at.TotalIterations, at.Repairs, at.Previous, at.AssignedUnder);
        var inertia = at.Inertia;
        while (iteration < options.MaxIterations)
        {
            iteration++;
            total++;
            cancellationToken.ThrowIfCancellationRequested();
            var pass = LloydPass(centres.ToRowMajor(), assignedUnder);
            var totals = partitions.Reduce(pass, cancellationToken);
            assignedUnder = pass.Centres;
            var (changed, empty) = LloydStep.MoveCentres(totals, centres, out inertia);
            progress?.TryWrite(new ClusteringProgress("kmeans", $"restart {at.Restart + 1}", total, null, K, inertia, _clock.Elapsed));
            var converged = false;
            if (empty >= 0)
            {
                repairs++;
                Repair(centres, empty, assignedUnder);
                previous = double.PositiveInfinity;
            }
            else
            {
                // The machine run counts the first iteration's changes against "no cluster yet", so it never stops on them.
                converged = (iteration > 1 && changed == 0) || previous - inertia <= options.Tolerance * Math.Max(inertia, 1e-300);
                previous = inertia;
            }

            if (converged)
            {
                break;
            }

            checkpoint?.Invoke(at with
            {
                Iteration = iteration, TotalIterations = total, Repairs = repairs, Previous = previous, Inertia = inertia,
                Centres = centres.ToRowMajor(), AssignedUnder = assignedUnder,
            });
        }

        var best = inertia < at.BestInertia;
        return at with
        {
            Restart = at.Restart + 1, Iteration = 0, TotalIterations = total, Repairs = repairs, Previous = double.PositiveInfinity, Inertia = 0,
            Centres = null, AssignedUnder = null,
            RestartInertias = [.. at.RestartInertias, inertia],
            BestCentres = best ? centres.ToRowMajor() : at.BestCentres,
            BestAssignedUnder = best ? assignedUnder : at.BestAssignedUnder,
            BestInertia = best ? inertia : at.BestInertia,
            BestRestart = best ? at.Restart : at.BestRestart,
            BestIterations = best ? iteration : at.BestIterations,
        };
    }

    /// <summary>
    /// Greedy k-means++ as the machine run seeds: the first centre drawn ∝ w; for each next, the
    /// candidates drawn ∝ w·D² (each draw walks the partitions' masses in order, then the chosen one's
    /// blocks) and the one with the lowest potential summed over the partitions in order kept.
    /// </summary>
    private double[] Seed(Random random)
    {
        var rows = new double[K * _d];
        var trials = options.TrialsFor(K);
        for (var c = 0; c < K; c++)
        {
            var step = new KMeansSeedStep(rows[..(c * _d)], _d, PlanLength, options.Parallel.BlockSize);
            var masses = partitions.SeedMasses(step, cancellationToken);
            var total = 0.0;
            foreach (var mass in masses)
            {
                total += mass;
            }

            var draws = c == 0 ? 1 : trials;
            var where = new (int Partition, double Target)[draws];
            for (var t = 0; t < draws; t++)
            {
                var (partition, target) = (0, random.NextDouble() * total);
                while (partition < masses.Length - 1 && !(target < masses[partition]))
                {
                    target -= masses[partition];
                    partition++;
                }

                where[t] = (partition, target);
            }

            var candidates = new double[draws * _d];
            foreach (var group in Enumerable.Range(0, draws).GroupBy(t => where[t].Partition))
            {
                var picks = partitions.Pick(group.Key, step, [.. group.Select(t => where[t].Target)], cancellationToken);
                foreach (var (t, pick) in group.Zip(picks))
                {
                    pick.Coordinates.CopyTo(candidates, t * _d);
                }
            }

            var chosen = 0;
            if (draws > 1)
            {
                var potentials = new double[draws];
                foreach (var partition in partitions.SeedPotentials(step, candidates, cancellationToken))
                {
                    for (var t = 0; t < draws; t++)
                    {
                        potentials[t] += partition[t];
                    }
                }

                for (var t = 1; t < draws; t++)
                {
                    chosen = potentials[t] < potentials[chosen] ? t : chosen;
                }
            }

            candidates.AsSpan(chosen * _d, _d).CopyTo(rows.AsSpan(c * _d));
        }

        return rows;
    }

    /// <summary>Moves an empty cluster to the point that adds most to the cost under the centres the points were last assigned under.</summary>
    private void Repair(CentreSet centres, int cluster, double[] assignedUnder)
    {
        var candidates = partitions.Farthest(assignedUnder, _kp, cancellationToken);
        var chosen = candidates[0];
        foreach (var candidate in candidates.Skip(1))
        {
            chosen = candidate.Value > chosen.Value ? candidate : chosen;
        }

        var rows = centres.ToRowMajor();
        chosen.Coordinates.CopyTo(rows, cluster * _d);
        centres.Set(rows, K);
    }

    private PartitionPass LloydPass(double[] centres, double[]? assignedUnder)
    {
        var set = new CentreSet(_d, K);
        set.Set(centres, K);
        return new PartitionPass(PassKind.Lloyd, new PassSums(_kp, _d).LloydLength, PlanLength, options.Parallel.BlockSize, set, new double[_kp])
        {
            AssignedUnder = assignedUnder,
        };
    }
}
