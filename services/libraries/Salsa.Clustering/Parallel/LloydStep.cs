namespace Salsa.Clustering.Parallel;

/// <summary>
/// Lloyd's M-step — every centre to the weighted mean of its points — shared by k-means (on a
/// machine and on a partition grid) and by the annealing's final refinement.
/// </summary>
internal static class LloydStep
{
    /// <summary>
    /// Moves every centre that kept some weight to the weighted mean of its points (from a Lloyd
    /// pass's folded <paramref name="totals"/>); returns how many points changed cluster and the first
    /// cluster left empty (−1 if none).
    /// </summary>
    public static (double Changed, int Empty) MoveCentres(double[] totals, CentreSet centres, out double inertia)
    {
        var sums = PassSums.Of(centres);
        inertia = totals[sums.Cost];
        var empty = -1;
        for (var c = 0; c < centres.K; c++)
        {
            var weight = totals[sums.Mass(c)];
            if (weight <= 0)
            {
                empty = empty < 0 ? c : empty;
                continue;
            }

            for (var j = 0; j < centres.Dimension; j++)
            {
                centres[c, j] = totals[sums.Sum(c, j)] / weight;
            }
        }

        centres.UpdateNorms();
        return (totals[sums.Changed], empty);
    }
}
