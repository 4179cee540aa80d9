using System.Globalization;
using Salsa.DataFiles;

namespace Salsa.Clustering.Tests;

/// <summary>The shared fixtures as algorithm inputs.</summary>
internal static class TestData
{
    private static readonly Lazy<(DenseVectors Points, double[][] Centres)> s_gmm = new(LoadGmm);
    private static readonly Lazy<DenseVectors> s_indiana = new(() => Census(CensusBlockGroups.IndianaPath));
    private static readonly Lazy<CompoundSet> s_chem = new(() => CompoundSet.ReadFile(CompoundSet.FixturePath));

    /// <summary>2,000 weighted points from five Gaussians, and the sample means of the five.</summary>
    public static (DenseVectors Points, double[][] Centres) Gmm => s_gmm.Value;

    /// <summary>Indiana's 5,290 block groups, population-weighted, projected to planar km.</summary>
    public static DenseVectors Indiana => s_indiana.Value;

    public static CompoundSet Chem => s_chem.Value;

    public static BinaryVectors Ecfp(int count = int.MaxValue)
    {
        var set = Chem;
        var n = Math.Min(count, set.Count);
        return new BinaryVectors(set.Fingerprints[FingerprintType.Ecfp4][..(n * FingerprintType.Ecfp4.Words)], FingerprintType.Ecfp4.Bits);
    }

    public static DenseVectors Census(string path)
    {
        var rows = CensusBlockGroups.ReadFile(path);
        var projection = EquirectangularProjection.CentredOn(rows);
        var values = new double[rows.Count * 2];
        var weights = new double[rows.Count];
        for (var i = 0; i < rows.Count; i++)
        {
            (values[2 * i], values[2 * i + 1]) = projection.Forward(rows[i].Latitude, rows[i].Longitude);
            weights[i] = rows[i].Population;
        }

        return new DenseVectors(values, 2, weights);
    }

    private static (DenseVectors, double[][]) LoadGmm()
    {
        static IEnumerable<string[]> Rows(string file) =>
            File.ReadLines(DataDirectory.Default.PathOf("fixtures", file)).Skip(1).Select(l => l.Split(','));

        double Parse(string s) => double.Parse(s, CultureInfo.InvariantCulture);
        var rows = Rows("gmm2d.csv").ToList();
        var points = new DenseVectors(
            [.. rows.SelectMany(r => new[] { Parse(r[0]), Parse(r[1]) })], 2, [.. rows.Select(r => Parse(r[2]))]);
        var centres = Rows("gmm2d_centers.csv").Select(r => new[] { Parse(r[5]), Parse(r[6]) }).ToArray();
        return (points, centres);
    }
}
