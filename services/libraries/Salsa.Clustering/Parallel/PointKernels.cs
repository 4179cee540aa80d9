using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Salsa.Clustering.Parallel;

/// <summary>
/// The per-point arithmetic every algorithm needs, over K "centre-like" vectors stored transposed
/// (<c>[dimension][Kp]</c>, Kp = K rounded up to the SIMD width) so that one SIMD operation serves
/// several centres at once. Implemented as structs and used through generic parameters, so each
/// algorithm is compiled once per representation with no virtual calls in the inner loops.
/// </summary>
/// <remarks>
/// Centre-indexed spans cover the first <c>span.Length</c> centres (a multiple of the vector width,
/// at most <c>kp</c>); <c>kp</c> is the row stride of the transposed layouts. Passing only the
/// centres in use keeps a step's cost proportional to K, not to the capacity Kmax.
/// </remarks>
internal interface IPointKernel
{
    int Count { get; }

    int Dimension { get; }

    double Weight(int point);

    /// <summary>|x|² of <paramref name="point"/>.</summary>
    double SquaredNorm(int point);

    /// <summary>Squared Euclidean distances from <paramref name="point"/> to each centre.</summary>
    void SquaredDistances(int point, ReadOnlySpan<double> centresT, ReadOnlySpan<double> centreNorms, int kp, Span<double> distances);

    /// <summary>
    /// The bounding box of points <c>[start, end)</c> (lowest and highest of each coordinate); false
    /// when a box would not bound distances usefully (bit vectors, many dimensions).
    /// </summary>
    bool Box(int start, int end, Span<double> lower, Span<double> upper);

    /// <summary>Dot products of <paramref name="point"/> with each of K vectors (transposed layout).</summary>
    void Dots(int point, ReadOnlySpan<double> vectorsT, int kp, Span<double> dots);

    /// <summary>The dot product of <paramref name="point"/> with vector <paramref name="k"/> alone: lane k of <see cref="Dots"/>, the same bits.</summary>
    double Dot(int point, ReadOnlySpan<double> vectorsT, int kp, int k);

    /// <summary><c>accumulatorT[j][k] += coefficient[k] · x_j</c> for every coordinate j of the point.</summary>
    void Accumulate(int point, ReadOnlySpan<double> coefficients, Span<double> accumulatorT, int kp);

    /// <summary><c>accumulatorT[j][k] += coefficient · x_j</c> for one centre only (hard assignment).</summary>
    void AccumulateOne(int point, int centre, double coefficient, Span<double> accumulatorT, int kp);

    /// <summary>True when the full d×d scatter of each cluster is cheap (few dimensions).</summary>
    bool SmallDimension { get; }

    /// <summary><c>scatter[k][a][b] += coefficient[k]·(x − y_k)_a·(x − y_k)_b</c> for the first K centres.</summary>
    void AccumulateScatter(int point, ReadOnlySpan<double> coefficients, CentreSet centres, Span<double> scatter);
}

internal readonly struct DenseKernel(DenseVectors points) : IPointKernel
{
    /// <summary>Up to this many dimensions the split test builds each cluster's full scatter matrix.</summary>
    public const int SmallDimensionLimit = 16;

    private readonly double[] _values = points.Values;
    private readonly double[] _weights = points.Weights;
    private readonly int _dimension = points.Dimension;

    public bool SmallDimension => _dimension <= SmallDimensionLimit;

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public void AccumulateScatter(int point, ReadOnlySpan<double> coefficients, CentreSet centres, Span<double> scatter)
    {
        var x = _values.AsSpan(point * _dimension, _dimension);
        Span<double> diff = stackalloc double[_dimension];
        var d2 = _dimension * _dimension;
        for (var k = 0; k < centres.K; k++)
        {
            var c = coefficients[k];
            if (c == 0)
            {
                continue;
            }

            for (var a = 0; a < diff.Length; a++)
            {
                diff[a] = x[a] - centres[k, a];
            }

            var s = scatter.Slice(k * d2, d2);
            for (var a = 0; a < diff.Length; a++)
            {
                var ca = c * diff[a];
                for (var b = 0; b < diff.Length; b++)
                {
                    s[a * diff.Length + b] += ca * diff[b];
                }
            }
        }
    }

    public int Count => _weights.Length;

    public int Dimension => _dimension;

    public double Weight(int point) => _weights[point];

    public double SquaredNorm(int point)
    {
        var norm = 0.0;
        foreach (var x in _values.AsSpan(point * _dimension, _dimension))
        {
            norm += x * x;
        }

        return norm;
    }

    public bool Box(int start, int end, Span<double> lower, Span<double> upper)
    {
        if (!SmallDimension || end <= start)
        {
            return false;
        }

        lower.Fill(double.PositiveInfinity);
        upper.Fill(double.NegativeInfinity);
        for (var i = start; i < end; i++)
        {
            var x = _values.AsSpan(i * _dimension, _dimension);
            for (var j = 0; j < x.Length; j++)
            {
                lower[j] = Math.Min(lower[j], x[j]);
                upper[j] = Math.Max(upper[j], x[j]);
            }
        }

        return true;
    }

    // Differences, not |x|² − 2x·y + |y|²: exact for clustered coordinates far from the origin.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void SquaredDistances(int point, ReadOnlySpan<double> centresT, ReadOnlySpan<double> centreNorms, int kp, Span<double> distances)
    {
        var x = _values.AsSpan(point * _dimension, _dimension);
        var d = MemoryMarshal.Cast<double, Vector<double>>(distances);
        if (x.Length == 2)
        {
            // The plane (census data): both coordinates in one pass, the same sums in the same order.
            var (x0, x1) = (new Vector<double>(x[0]), new Vector<double>(x[1]));
            var c0 = MemoryMarshal.Cast<double, Vector<double>>(centresT.Slice(0, distances.Length));
            var c1 = MemoryMarshal.Cast<double, Vector<double>>(centresT.Slice(kp, distances.Length));
            for (var v = 0; v < d.Length; v++)
            {
                var (e0, e1) = (x0 - c0[v], x1 - c1[v]);
                d[v] = e0 * e0 + e1 * e1;
            }

            return;
        }

        d.Clear();
        for (var j = 0; j < x.Length; j++)
        {
            var xj = new Vector<double>(x[j]);
            var c = MemoryMarshal.Cast<double, Vector<double>>(centresT.Slice(j * kp, distances.Length));
            for (var v = 0; v < d.Length; v++)
            {
                var diff = xj - c[v];
                d[v] += diff * diff;
            }
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Dots(int point, ReadOnlySpan<double> vectorsT, int kp, Span<double> dots)
    {
        var x = _values.AsSpan(point * _dimension, _dimension);
        var d = MemoryMarshal.Cast<double, Vector<double>>(dots);
        d.Clear();
        for (var j = 0; j < x.Length; j++)
        {
            var xj = new Vector<double>(x[j]);
            var c = MemoryMarshal.Cast<double, Vector<double>>(vectorsT.Slice(j * kp, dots.Length));
            for (var v = 0; v < d.Length; v++)
            {
                d[v] += xj * c[v];
            }
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public double Dot(int point, ReadOnlySpan<double> vectorsT, int kp, int k)
    {
        var x = _values.AsSpan(point * _dimension, _dimension);
        var dot = 0.0;
        for (var j = 0; j < x.Length; j++)
        {
            dot += x[j] * vectorsT[j * kp + k];
        }

        return dot;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Accumulate(int point, ReadOnlySpan<double> coefficients, Span<double> accumulatorT, int kp)
    {
        var x = _values.AsSpan(point * _dimension, _dimension);
        var coef = MemoryMarshal.Cast<double, Vector<double>>(coefficients);
        for (var j = 0; j < x.Length; j++)
        {
            var xj = new Vector<double>(x[j]);
            var acc = MemoryMarshal.Cast<double, Vector<double>>(accumulatorT.Slice(j * kp, coefficients.Length));
            for (var v = 0; v < acc.Length; v++)
            {
                acc[v] += xj * coef[v];
            }
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public void AccumulateOne(int point, int centre, double coefficient, Span<double> accumulatorT, int kp)
    {
        var x = _values.AsSpan(point * _dimension, _dimension);
        for (var j = 0; j < x.Length; j++)
        {
            accumulatorT[j * kp + centre] += coefficient * x[j];
        }
    }
}

/// <summary>
/// Bit vectors: x·y sums y over x's set bits only and |x − y|² = |x| − 2x·y + |y|² (exact in
/// binary coordinates), so a point costs its ~40 set bits rather than its 1,024 coordinates.
/// </summary>
internal readonly struct BinaryKernel(BinaryVectors points) : IPointKernel
{
    private readonly ushort[] _bits = points.SetBits;
    private readonly int[] _offsets = points.Offsets;
    private readonly double[] _weights = points.Weights;
    private readonly int _dimension = points.Bits;

    public bool SmallDimension => false;

    public void AccumulateScatter(int point, ReadOnlySpan<double> coefficients, CentreSet centres, Span<double> scatter) =>
        throw new NotSupportedException("Fingerprints have too many dimensions for a full scatter matrix; the split test uses power iteration.");

    public bool Box(int start, int end, Span<double> lower, Span<double> upper) => false;

    public int Count => _weights.Length;

    public int Dimension => _dimension;

    public double Weight(int point) => _weights[point];

    public double SquaredNorm(int point) => _offsets[point + 1] - _offsets[point];

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void SquaredDistances(int point, ReadOnlySpan<double> centresT, ReadOnlySpan<double> centreNorms, int kp, Span<double> distances)
    {
        Dots(point, centresT, kp, distances);
        var d = MemoryMarshal.Cast<double, Vector<double>>(distances);
        var norms = MemoryMarshal.Cast<double, Vector<double>>(centreNorms.Slice(0, distances.Length));
        var popcount = new Vector<double>(_offsets[point + 1] - _offsets[point]);
        var two = new Vector<double>(2.0);
        for (var v = 0; v < d.Length; v++)
        {
            // Rounding can make a tiny distance negative; distances are never below zero.
            d[v] = Vector.Max(popcount - two * d[v] + norms[v], Vector<double>.Zero);
        }
    }

    /// <summary>
    /// Sums of the rows of the point's set bits, up to four vectors of lanes at a time held in
    /// registers across the bits (summing into memory made every bit wait for the previous bit's
    /// store). Each lane adds the same values in the same order as <see cref="Dot"/>. The rows are read
    /// without per-bit bounds checks: every set bit lies below <see cref="BinaryVectors.Bits"/>
    /// (checked when the vectors were made) and the layout is checked to hold that many rows.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Dots(int point, ReadOnlySpan<double> vectorsT, int kp, Span<double> dots)
    {
        if (vectorsT.Length < _dimension * kp || dots.Length > kp)
        {
            throw new ArgumentException($"The layout holds {vectorsT.Length} values; {_dimension} rows of {kp} are needed.", nameof(vectorsT));
        }

        var d = MemoryMarshal.Cast<double, Vector<double>>(dots);
        var bits = _bits.AsSpan(_offsets[point], _offsets[point + 1] - _offsets[point]);
        ref var origin = ref MemoryMarshal.GetReference(vectorsT);
        var width = Vector<double>.Count;
        for (var first = 0; first < d.Length; first += 4)
        {
            ref var column = ref Unsafe.Add(ref origin, first * width);
            switch (d.Length - first)
            {
                case 1:
                    d[first] = SumRows1(bits, ref column, kp);
                    break;
                case 2:
                    (d[first], d[first + 1]) = SumRows2(bits, ref column, kp);
                    break;
                case 3:
                    (d[first], d[first + 1], d[first + 2]) = SumRows3(bits, ref column, kp);
                    break;
                default:
                    (d[first], d[first + 1], d[first + 2], d[first + 3]) = SumRows4(bits, ref column, kp);
                    break;
            }
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static Vector<double> SumRows1(ReadOnlySpan<ushort> bits, ref double column, int kp)
    {
        var s0 = Vector<double>.Zero;
        foreach (var bit in bits)
        {
            s0 += Vector.LoadUnsafe(ref Unsafe.Add(ref column, bit * kp));
        }

        return s0;
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static (Vector<double>, Vector<double>) SumRows2(ReadOnlySpan<ushort> bits, ref double column, int kp)
    {
        var (s0, s1) = (Vector<double>.Zero, Vector<double>.Zero);
        var width = (nuint)Vector<double>.Count;
        foreach (var bit in bits)
        {
            ref var row = ref Unsafe.Add(ref column, bit * kp);
            s0 += Vector.LoadUnsafe(ref row);
            s1 += Vector.LoadUnsafe(ref row, width);
        }

        return (s0, s1);
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static (Vector<double>, Vector<double>, Vector<double>) SumRows3(ReadOnlySpan<ushort> bits, ref double column, int kp)
    {
        var (s0, s1, s2) = (Vector<double>.Zero, Vector<double>.Zero, Vector<double>.Zero);
        var width = (nuint)Vector<double>.Count;
        foreach (var bit in bits)
        {
            ref var row = ref Unsafe.Add(ref column, bit * kp);
            s0 += Vector.LoadUnsafe(ref row);
            s1 += Vector.LoadUnsafe(ref row, width);
            s2 += Vector.LoadUnsafe(ref row, 2 * width);
        }

        return (s0, s1, s2);
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private static (Vector<double>, Vector<double>, Vector<double>, Vector<double>) SumRows4(ReadOnlySpan<ushort> bits, ref double column, int kp)
    {
        var (s0, s1, s2, s3) = (Vector<double>.Zero, Vector<double>.Zero, Vector<double>.Zero, Vector<double>.Zero);
        var width = (nuint)Vector<double>.Count;
        foreach (var bit in bits)
        {
            ref var row = ref Unsafe.Add(ref column, bit * kp);
            s0 += Vector.LoadUnsafe(ref row);
            s1 += Vector.LoadUnsafe(ref row, width);
            s2 += Vector.LoadUnsafe(ref row, 2 * width);
            s3 += Vector.LoadUnsafe(ref row, 3 * width);
        }

        return (s0, s1, s2, s3);
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public double Dot(int point, ReadOnlySpan<double> vectorsT, int kp, int k)
    {
        var dot = 0.0;
        foreach (var bit in _bits.AsSpan(_offsets[point], _offsets[point + 1] - _offsets[point]))
        {
            dot += vectorsT[bit * kp + k];
        }

        return dot;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Accumulate(int point, ReadOnlySpan<double> coefficients, Span<double> accumulatorT, int kp)
    {
        var coef = MemoryMarshal.Cast<double, Vector<double>>(coefficients);
        var bits = _bits.AsSpan(_offsets[point], _offsets[point + 1] - _offsets[point]);
        foreach (var bit in bits)
        {
            var acc = MemoryMarshal.Cast<double, Vector<double>>(accumulatorT.Slice(bit * kp, coefficients.Length));
            for (var v = 0; v < acc.Length; v++)
            {
                acc[v] += coef[v];
            }
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    public void AccumulateOne(int point, int centre, double coefficient, Span<double> accumulatorT, int kp)
    {
        foreach (var bit in _bits.AsSpan(_offsets[point], _offsets[point + 1] - _offsets[point]))
        {
            accumulatorT[bit * kp + centre] += coefficient;
        }
    }
}

/// <summary>Centres in the kernels' transposed, SIMD-padded layout.</summary>
internal sealed class CentreSet
{
    public CentreSet(int dimension, int capacity)
    {
        Dimension = dimension;
        Kp = Pad(capacity);
        Transposed = new double[dimension * Kp];
        Norms = new double[Kp];
    }

    public int Dimension { get; }

    /// <summary>Centres in use.</summary>
    public int K { get; private set; }

    /// <summary>Stride of the transposed layout (capacity rounded up to the SIMD width).</summary>
    public int Kp { get; }

    public double[] Transposed { get; }

    /// <summary>|y_k|², kept for the binary distance identity.</summary>
    public double[] Norms { get; }

    public static int Pad(int k) => (k + Vector<double>.Count - 1) / Vector<double>.Count * Vector<double>.Count;

    public double this[int k, int j]
    {
        get => Transposed[j * Kp + k];
        set => Transposed[j * Kp + k] = value;
    }

    /// <summary>Sets the centres from row-major values (K × dimension) and recomputes norms.</summary>
    public void Set(ReadOnlySpan<double> rowMajor, int k)
    {
        if (k > Kp)
        {
            throw new ArgumentOutOfRangeException(nameof(k), k, $"The set holds {Kp} centres.");
        }

        K = k;
        Array.Clear(Transposed);
        for (var c = 0; c < k; c++)
        {
            for (var j = 0; j < Dimension; j++)
            {
                Transposed[j * Kp + c] = rowMajor[c * Dimension + j];
            }
        }

        UpdateNorms();
    }

    public double[] ToRowMajor()
    {
        var rows = new double[K * Dimension];
        CopyRowMajor(rows);
        return rows;
    }

    /// <summary>The centres, row-major (K × dimension), into <paramref name="rows"/>.</summary>
    public void CopyRowMajor(Span<double> rows)
    {
        for (var c = 0; c < K; c++)
        {
            for (var j = 0; j < Dimension; j++)
            {
                rows[c * Dimension + j] = Transposed[j * Kp + c];
            }
        }
    }

    public void UpdateNorms()
    {
        Array.Clear(Norms);
        for (var j = 0; j < Dimension; j++)
        {
            for (var c = 0; c < K; c++)
            {
                var value = Transposed[j * Kp + c];
                Norms[c] += value * value;
            }
        }
    }
}
