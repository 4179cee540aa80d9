using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;

namespace Salsa.Clustering.Annealing;

internal sealed partial class AnnealingRun
{
    /// <summary>At T = 0: Lloyd passes from the annealed centres, then the split–merge moves that keep K.</summary>
    private sealed partial class Rank
    {
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
    }
}
