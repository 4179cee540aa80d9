namespace Salsa.Testing;

/// <summary>A weighted 2-D mixture of nine Gaussian blobs: the clustered points the cluster tests run on.</summary>
public static class WeightedBlobs
{
    /// <summary><paramref name="points"/> points (x, y row-major) and their whole-number weights in [1, 1000], the same for the same seed.</summary>
    public static (double[] Values, double[] Weights) Make(int points, int seed)
    {
        var random = new Random(seed);
        var blobs = Enumerable.Range(0, 9).Select(_ => (X: random.NextDouble() * 100, Y: random.NextDouble() * 100, S: 1 + random.NextDouble() * 6)).ToArray();
        var values = new double[points * 2];
        var weights = new double[points];
        for (var i = 0; i < points; i++)
        {
            var (x, y, s) = blobs[i % blobs.Length];
            values[2 * i] = x + s * Gaussian(random);
            values[2 * i + 1] = y + s * Gaussian(random);
            weights[i] = Math.Round(1 + random.NextDouble() * 999);
        }

        return (values, weights);
    }

    private static double Gaussian(Random random) =>
        Math.Sqrt(-2 * Math.Log(1 - random.NextDouble())) * Math.Cos(2 * Math.PI * random.NextDouble());
}
