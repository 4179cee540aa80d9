using Salsa.Clustering.Fingerprints;

namespace Salsa.Clustering.Mds;

/// <summary>
/// Where an MDS run gets δ_ij: a precomputed condensed upper triangle (row-major over i &lt; j, the
/// order of SciPy's <c>pdist</c>: (0,1), (0,2), …, (0,n−1), (1,2), …), Tanimoto distances of
/// fingerprints, or Euclidean distances of points. The run expands them once into a square matrix in
/// single precision (7 significant digits, far finer than any stress an embedding reaches; it halves
/// the n² memory to 400 MB at 10,000 items) so every row it reads is contiguous.
/// </summary>
public sealed class Dissimilarities
{
    private readonly double[]? _condensed;
    private readonly float[]? _condensedSingle;
    private readonly BinaryVectors? _fingerprints;
    private readonly DenseVectors? _points;

    private Dissimilarities(int count, string source, double[]? condensed = null, float[]? condensedSingle = null, BinaryVectors? fingerprints = null, DenseVectors? points = null)
    {
        Count = count;
        Source = source;
        _condensed = condensed;
        _condensedSingle = condensedSingle;
        _fingerprints = fingerprints;
        _points = points;
    }

    /// <summary>Items.</summary>
    public int Count { get; }

    /// <summary>"condensed", "tanimoto" or "euclidean".</summary>
    public string Source { get; }

    public static Dissimilarities FromCondensed(double[] upperTriangle)
    {
        ArgumentNullException.ThrowIfNull(upperTriangle);
        var n = ItemsOf(upperTriangle.LongLength);
        Validate(n, k => upperTriangle[k]);
        return new Dissimilarities(n, "condensed", condensed: upperTriangle);
    }

    public static Dissimilarities FromCondensed(float[] upperTriangle)
    {
        ArgumentNullException.ThrowIfNull(upperTriangle);
        var n = ItemsOf(upperTriangle.LongLength);
        Validate(n, k => upperTriangle[k]);
        return new Dissimilarities(n, "condensed", condensedSingle: upperTriangle);
    }

    /// <summary>Tanimoto (Soergel) distances 1 − |a∧b|/|a∨b| of fingerprints; their weights are not used.</summary>
    public static Dissimilarities FromTanimoto(BinaryVectors fingerprints)
    {
        ArgumentNullException.ThrowIfNull(fingerprints);
        return new Dissimilarities(fingerprints.Count, "tanimoto", fingerprints: fingerprints);
    }

    /// <summary>Euclidean distances of points; their weights are not used.</summary>
    public static Dissimilarities FromEuclidean(DenseVectors points)
    {
        ArgumentNullException.ThrowIfNull(points);
        return new Dissimilarities(points.Count, "euclidean", points: points);
    }

    /// <summary>δ_ij for i &lt; j.</summary>
    internal double At(int i, int j)
    {
        if (_condensed is not null)
        {
            return _condensed[CondensedIndex(i, j, Count)];
        }

        if (_condensedSingle is not null)
        {
            return _condensedSingle[CondensedIndex(i, j, Count)];
        }

        if (_fingerprints is not null)
        {
            return Tanimoto.Distance(_fingerprints, i, j);
        }

        var x = _points!.Point(i);
        var y = _points.Point(j);
        var sum = 0.0;
        for (var d = 0; d < x.Length; d++)
        {
            var diff = x[d] - y[d];
            sum += diff * diff;
        }

        return Math.Sqrt(sum);
    }

    /// <summary>Rows [first, end) of the upper triangle of the n×n matrix, mirrored below the diagonal.</summary>
    internal void FillRows(float[] square, int first, int end, CancellationToken cancellationToken)
    {
        var n = Count;
        for (var i = first; i < end; i++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            for (var j = i + 1; j < n; j++)
            {
                var value = (float)At(i, j);
                square[(long)i * n + j] = value;
                square[(long)j * n + i] = value;
            }
        }
    }

    private static long CondensedIndex(int i, int j, int n) => (long)i * n - (long)i * (i + 1) / 2 + (j - i - 1);

    private static int ItemsOf(long length)
    {
        if (length == 0)
        {
            throw new ClusteringInputException("There are no dissimilarities: a condensed matrix of n items has n(n−1)/2 entries, and n must be at least 2.", "upperTriangle");
        }

        var n = (long)Math.Round((1 + Math.Sqrt(1 + 8.0 * length)) / 2);
        if (n * (n - 1) / 2 != length)
        {
            throw new ClusteringInputException($"{length} values are not a condensed upper triangle: n items have n(n−1)/2 of them.", "upperTriangle");
        }

        return checked((int)n);
    }

    private static void Validate(int n, Func<long, double> value)
    {
        var k = 0L;
        for (var i = 0; i < n; i++)
        {
            for (var j = i + 1; j < n; j++, k++)
            {
                var v = value(k);
                if (!(v >= 0) || !(v <= float.MaxValue))
                {
                    throw new ClusteringInputException($"The dissimilarity of items {i} and {j} is {v}; dissimilarities must be finite and non-negative.", "upperTriangle");
                }
            }
        }
    }
}
