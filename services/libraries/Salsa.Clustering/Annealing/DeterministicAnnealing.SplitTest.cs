using Salsa.Clustering.Parallel;
using Salsa.Clustering.Partitions;

namespace Salsa.Clustering.Annealing;

internal sealed partial class AnnealingRun
{
    /// <summary>The split test: which clusters passed their critical temperature, along which axis, and merging children that did not separate.</summary>
    private sealed partial class Rank
    {
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
    }
}
