using System.Globalization;
using System.Text;
using Salsa.DataFiles;

namespace Salsa.Services.Tests.Support;

/// <summary>The shipped data fixtures as the services' clients send them.</summary>
public static class Fixtures
{
    /// <summary>The text, UTF-8, gzip-compressed: an upload as a user's .gz file holds it.</summary>
    public static byte[] Gzip(string text)
    {
        using var packed = new MemoryStream();
        using (var gzip = new System.IO.Compression.GZipStream(packed, System.IO.Compression.CompressionLevel.Fastest, leaveOpen: true))
        {
            gzip.Write(System.Text.Encoding.UTF8.GetBytes(text));
        }

        return packed.ToArray();
    }

    private static readonly Lazy<(double[] Values, double[] Weights, double[][] Centres)> s_gmm = new(LoadGmm);

    /// <summary>2,000 2-D points from five Gaussians (weights), and the five sample means.</summary>
    public static (double[] Values, double[] Weights, double[][] Centres) Gmm => s_gmm.Value;

    /// <summary>
    /// A cooling factor that, with <c>fixedCooling</c>, keeps an annealing job running for seconds: about
    /// 69,000 temperatures down to 10⁻⁶ of the start, within <c>Salsa:Limits:MaxTemperatures</c>. A job
    /// that reaches its <c>maxClusters</c> stops cooling there (the gmm points' five clusters: 3–4 s
    /// here); ask for more clusters than the data have to keep it running longer.
    /// </summary>
    public const double SlowCoolingFactor = 0.9998;

    /// <summary>The gmm points as a dense CSV upload: x,y,weight.</summary>
    public static string GmmCsv()
    {
        var (values, weights, _) = Gmm;
        var csv = new StringBuilder("x,y,weight\n");
        for (var i = 0; i < weights.Length; i++)
        {
            csv.Append(CultureInfo.InvariantCulture, $"{values[2 * i]:R},{values[2 * i + 1]:R},{weights[i]:R}\n");
        }

        return csv.ToString();
    }

    /// <summary>The distance from <paramref name="centre"/> to the nearest of <paramref name="found"/> (row-major, 2-D).</summary>
    public static double NearestDistance(double[] centre, IReadOnlyList<double> found)
    {
        var best = double.MaxValue;
        for (var k = 0; k < found.Count / 2; k++)
        {
            best = Math.Min(best, Math.Sqrt(Math.Pow(found[2 * k] - centre[0], 2) + Math.Pow(found[2 * k + 1] - centre[1], 2)));
        }

        return best;
    }

    private static (double[], double[], double[][]) LoadGmm()
    {
        static IEnumerable<string[]> Rows(string file) =>
            File.ReadLines(DataDirectory.Default.PathOf("fixtures", file)).Skip(1).Select(l => l.Split(','));

        static double Parse(string s) => double.Parse(s, CultureInfo.InvariantCulture);
        var rows = Rows("gmm2d.csv").ToList();
        return (
            [.. rows.SelectMany(r => new[] { Parse(r[0]), Parse(r[1]) })],
            [.. rows.Select(r => Parse(r[2]))],
            [.. Rows("gmm2d_centers.csv").Select(r => new[] { Parse(r[5]), Parse(r[6]) })]);
    }
}
