namespace Salsa.Clustering.Parallel;

/// <summary>
/// Eigenpairs of a small symmetric matrix by cyclic Jacobi rotations: the principal axis of a
/// cluster's covariance (annealing splits) and the Rayleigh–Ritz step of the MDS Torgerson start.
/// </summary>
internal static class SymmetricEigen
{
    /// <summary>The largest eigenvalue and its eigenvector. <paramref name="matrix"/> is n×n row-major and is overwritten.</summary>
    public static (double Value, double[] Vector) Largest(double[] matrix, int n)
    {
        var (values, vectors) = Decompose(matrix, n);
        var vector = new double[n];
        for (var r = 0; r < n; r++)
        {
            vector[r] = vectors[r * n];
        }

        return (values[0], vector);
    }

    /// <summary>
    /// Eigenvalues in decreasing order and their eigenvectors as columns of an n×n row-major matrix
    /// (vectors[r·n + c] is component r of eigenvector c). <paramref name="matrix"/> is overwritten.
    /// </summary>
    public static (double[] Values, double[] Vectors) Decompose(double[] matrix, int n)
    {
        var v = new double[n * n];
        for (var i = 0; i < n; i++)
        {
            v[i * n + i] = 1;
        }

        for (var sweep = 0; sweep < 100; sweep++)
        {
            double off = 0, total = 0;
            for (var p = 0; p < n; p++)
            {
                total += matrix[p * n + p] * matrix[p * n + p];
                for (var q = p + 1; q < n; q++)
                {
                    off += matrix[p * n + q] * matrix[p * n + q];
                }
            }

            if (off <= 1e-30 * Math.Max(total, 1e-300))
            {
                break;
            }

            for (var p = 0; p < n; p++)
            {
                for (var q = p + 1; q < n; q++)
                {
                    Rotate(matrix, v, n, p, q);
                }
            }
        }

        var order = Enumerable.Range(0, n).OrderByDescending(i => matrix[i * n + i]).ThenBy(i => i).ToArray();
        var values = new double[n];
        var vectors = new double[n * n];
        for (var c = 0; c < n; c++)
        {
            values[c] = matrix[order[c] * n + order[c]];
            for (var r = 0; r < n; r++)
            {
                vectors[r * n + c] = v[r * n + order[c]];
            }
        }

        return (values, vectors);
    }

    private static void Rotate(double[] a, double[] v, int n, int p, int q)
    {
        var apq = a[p * n + q];
        if (apq == 0)
        {
            return;
        }

        var theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        var t = theta == 0 ? 1 : Math.Sign(theta) / (Math.Abs(theta) + Math.Sqrt(theta * theta + 1));
        var c = 1 / Math.Sqrt(t * t + 1);
        var s = t * c;
        for (var k = 0; k < n; k++)
        {
            var akp = a[k * n + p];
            var akq = a[k * n + q];
            a[k * n + p] = c * akp - s * akq;
            a[k * n + q] = s * akp + c * akq;
        }

        for (var k = 0; k < n; k++)
        {
            var apk = a[p * n + k];
            var aqk = a[q * n + k];
            a[p * n + k] = c * apk - s * aqk;
            a[q * n + k] = s * apk + c * aqk;
        }

        for (var k = 0; k < n; k++)
        {
            var vkp = v[k * n + p];
            var vkq = v[k * n + q];
            v[k * n + p] = c * vkp - s * vkq;
            v[k * n + q] = s * vkp + c * vkq;
        }
    }
}
