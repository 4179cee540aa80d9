using Salsa.DataFiles;
using Salsa.Rendering.Maps;

namespace Salsa.Rendering.Tests;

/// <summary>
/// Deterministic clusterings made here rather than by Salsa.Clustering: each point goes to the
/// nearest of fixed seeds in the plane, and each centre is the population-weighted mean of its
/// points, as a clustering's would be.
/// </summary>
internal static class Clusterings
{
    /// <summary>Indianapolis, Fort Wayne, Gary, Evansville, Bloomington, South Bend.</summary>
    private static readonly GeoPoint[] IndianaSeeds =
    [
        new(39.77, -86.16), new(41.08, -85.14), new(41.60, -87.35), new(37.97, -87.57), new(39.17, -86.53), new(41.68, -86.25),
    ];

    private static readonly Lazy<(ClusteredPoints Data, List<CensusBlockGroup> Rows)> s_indiana = new(() =>
    {
        var rows = CensusBlockGroups.ReadFile(CensusBlockGroups.IndianaFixturePath);
        return (Nearest(rows, IndianaSeeds), rows);
    });

    private static readonly Lazy<ClusteredPoints> s_national = new(() =>
    {
        var rows = CensusBlockGroups.ReadFile(CensusBlockGroups.NationalPath);

        // Every 2,423rd block group: rows are sorted by geoid, so the seeds spread over the states.
        var seeds = Enumerable.Range(0, 100).Select(k => rows[(int)((k + 0.5) * rows.Count / 100)]).Select(r => new GeoPoint(r.Latitude, r.Longitude)).ToArray();
        return Nearest(rows, seeds);
    });

    /// <summary>The 1,000-point Indiana fixture in 6 clusters.</summary>
    public static ClusteredPoints Indiana => s_indiana.Value.Data;

    public static IReadOnlyList<CensusBlockGroup> IndianaRows => s_indiana.Value.Rows;

    /// <summary>All 242,335 block groups in 100 clusters.</summary>
    public static ClusteredPoints National => s_national.Value;

    public static ClusteredPoints Nearest(IReadOnlyList<CensusBlockGroup> rows, IReadOnlyList<GeoPoint> seeds)
    {
        var projection = EquirectangularProjection.CentredOn(rows);
        var seedXy = seeds.Select(s => projection.Forward(s.Latitude, s.Longitude)).ToArray();
        var k = seeds.Count;
        var assignments = new int[rows.Count];
        var (sumX, sumY, sumW) = (new double[k], new double[k], new double[k]);
        for (var i = 0; i < rows.Count; i++)
        {
            var (x, y) = projection.Forward(rows[i].Latitude, rows[i].Longitude);
            var best = 0;
            for (var c = 1; c < k; c++)
            {
                if (Distance2(x, y, seedXy[c]) < Distance2(x, y, seedXy[best]))
                {
                    best = c;
                }
            }

            assignments[i] = best;

            // A tiny weight for everyone keeps an all-unpopulated cluster's centre defined.
            var w = rows[i].Population + 1e-6;
            (sumX[best], sumY[best], sumW[best]) = (sumX[best] + (w * x), sumY[best] + (w * y), sumW[best] + w);
        }

        var centres = new double[2 * k];
        for (var c = 0; c < k; c++)
        {
            (centres[2 * c], centres[(2 * c) + 1]) = sumW[c] > 0 ? (sumX[c] / sumW[c], sumY[c] / sumW[c]) : seedXy[c];
        }

        return ClusteredPoints.FromCensus(rows, assignments, new PlanarCentres(projection, centres));
    }

    private static double Distance2(double x, double y, (double X, double Y) seed) =>
        ((x - seed.X) * (x - seed.X)) + ((y - seed.Y) * (y - seed.Y));
}
