using Salsa.Clustering.Partitions;

namespace Salsa.Clustering.Annealing;

internal sealed partial class AnnealingRun
{
    /// <summary>The E- and M-steps at one temperature, iterated until the centres hold still.</summary>
    private sealed partial class Rank
    {
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
    }
}
