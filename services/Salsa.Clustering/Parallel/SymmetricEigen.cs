namespace Salsa.Clustering.Parallel;

/// <summary>Largest eigenvalue and its eigenvector of a small symmetric matrix, by cyclic Jacobi rotations.</summary>
internal static class SymmetricEigen
{
    /// <summary><paramref name="matrix"/> is n×n row-major and is overwritten.</summary>
    public static (double Value, double[] Vector) Largest(double[] matrix, int n)
    {
        var v = new double[n * n];
        for (var i = 0; i < n; i++)
        {
            v[i * n + i] = 1;
        }

        for (var sweep = 0; sweep < 64; sweep++)
        {
            var off = 0.0;
            for (var p = 0; p < n; p++)
            {
                for (var q = p + 1; q < n; q++)
                {
                    off += matrix[p * n + q] * matrix[p * n + q];
                }
            }

            if (off < 1e-30)
            {
                break;
            }

            for (var p = 0; p < n; p++)
            {
                for (var q = p + 1; q < n; q++)
                {
                    var apq = matrix[p * n + q];
                    if (Math.Abs(apq) < 1e-300)
                    {
                        continue;
                    }

                    var theta = (matrix[q * n + q] - matrix[p * n + p]) / (2 * apq);
                    var t = Math.Sign(theta) / (Math.Abs(theta) + Math.Sqrt(theta * theta + 1));
                    if (theta == 0)
                    {
                        t = 1;
                    }

                    var c = 1 / Math.Sqrt(t * t + 1);
                    var s = t * c;
                    for (var k = 0; k < n; k++)
                    {
                        var akp = matrix[k * n + p];
                        var akq = matrix[k * n + q];
                        matrix[k * n + p] = c * akp - s * akq;
                        matrix[k * n + q] = s * akp + c * akq;
                    }

                    for (var k = 0; k < n; k++)
                    {
                        var apk = matrix[p * n + k];
                        var aqk = matrix[q * n + k];
                        matrix[p * n + k] = c * apk - s * aqk;
                        matrix[q * n + k] = s * apk + c * aqk;
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
        }

        var best = 0;
        for (var i = 1; i < n; i++)
        {
            if (matrix[i * n + i] > matrix[best * n + best])
            {
                best = i;
            }
        }

        var vector = new double[n];
        for (var k = 0; k < n; k++)
        {
            vector[k] = v[k * n + best];
        }

        return (matrix[best * n + best], vector);
    }
}
