using System.Numerics;
using System.Runtime.InteropServices;

namespace Salsa.Clustering.Parallel;

/// <summary>
/// The centres a block of points can need, in the kernels' transposed layout: for points in few
/// dimensions, the block's bounding box bounds every centre's distance to every point of the block,
/// and a centre those bounds put out of reach of all of them is left out of the block's loop.
/// Points are stored in their file's order — census block groups by state and county — so a block
/// covers a small area and, once the clusters are small, needs a few of the K centres.
/// </summary>
/// <remarks>
/// A centre is left out only when it provably could not count for any point of the block (its term
/// below the reach of the E-step's soft-max, or farther than another centre for the nearest), with a
/// relative margin of 10⁻⁹ on the bounds for rounding; the kept centres stay in increasing order.
/// So the nearest centre, its distance and the terms within reach are those of the full loop.
/// One window per thread, reused from block to block.
/// </remarks>
internal sealed class CentreWindow
{
    private const double Margin = 1e-9;

    [ThreadStatic]
    private static CentreWindow? s_current;

    private int[] _index = [];
    private double[] _lower = [];
    private double[] _upper = [];
    private double[] _near = [];
    private double[] _far = [];

    // The window's own layout when it holds some of the centres.
    private double[] _ownTransposed = [];
    private double[] _ownNorms = [];
    private double[] _ownLogMass = [];

    // What the spans show: the centre set's arrays (all centres) or the window's own.
    private double[] _transposed = [];
    private double[] _norms = [];
    private double[] _logMass = [];

    /// <summary>Centres in the window.</summary>
    public int K { get; private set; }

    /// <summary>Stride of <see cref="Transposed"/>: <see cref="K"/> rounded up to the vector width.</summary>
    public int Stride { get; private set; }

    public ReadOnlySpan<double> Transposed => _transposed.AsSpan(0, Stride * Dimension);

    public ReadOnlySpan<double> Norms => _norms.AsSpan(0, Stride);

    /// <summary>Log masses of the window's centres, −∞ in the padding.</summary>
    public ReadOnlySpan<double> LogMass => _logMass.AsSpan(0, Math.Min(Stride, _logMass.Length));

    /// <summary>True when every centre is in the window, at its own index (the centre set's own arrays).</summary>
    public bool All { get; private set; }

    private int Dimension { get; set; }

    /// <summary>The centre set's index of the window's <paramref name="position"/>-th centre.</summary>
    public int Centre(int position) => All ? position : _index[position];

    /// <summary>The centres any point of <c>[start, end)</c> can be nearest to.</summary>
    public static CentreWindow ForNearest<TKernel>(in TKernel kernel, CentreSet centres, int start, int end)
        where TKernel : struct, IPointKernel
    {
        var window = s_current ??= new CentreWindow();
        if (!window.Bound(kernel, centres, start, end))
        {
            return window.Everything(centres, null);
        }

        // No point is nearer to a centre than its nearest possible distance, nor farther from the best
        // than the best's farthest possible.
        var (k, near, far, index) = (centres.K, window._near, window._far, window._index);
        var reach = double.PositiveInfinity;
        for (var c = 0; c < k; c++)
        {
            reach = Math.Min(reach, far[c]);
        }

        var n = 0;
        for (var c = 0; c < k; c++)
        {
            if (near[c] <= reach)
            {
                index[n++] = c;
            }
        }

        return window.Keep(centres, null, n);
    }

    /// <summary>The centres whose soft-max term can be within <see cref="SoftMax.Reach"/> of the largest for a point of <c>[start, end)</c>.</summary>
    public static CentreWindow ForSoftMax<TKernel>(in TKernel kernel, CentreSet centres, double[] logMass, double inverseT, int start, int end)
        where TKernel : struct, IPointKernel
    {
        var window = s_current ??= new CentreWindow();
        if (!window.Bound(kernel, centres, start, end))
        {
            return window.Everything(centres, logMass);
        }

        // Every point's largest term is at least the best of the lowest possible terms.
        var (k, near, far, index) = (centres.K, window._near, window._far, window._index);
        var floor = double.NegativeInfinity;
        for (var c = 0; c < k; c++)
        {
            floor = Math.Max(floor, logMass[c] - far[c] * inverseT);
        }

        floor -= SoftMax.Reach;
        var n = 0;
        for (var c = 0; c < k; c++)
        {
            if (logMass[c] - near[c] * inverseT >= floor)
            {
                index[n++] = c;
            }
        }

        return window.Keep(centres, logMass, n);
    }

    private CentreWindow Everything(CentreSet centres, double[]? logMass)
    {
        (All, K, Stride, Dimension) = (true, centres.K, centres.Kp, centres.Dimension);
        (_transposed, _norms, _logMass) = (centres.Transposed, centres.Norms, logMass ?? []);
        return this;
    }

    // The block's bounding box and every centre's nearest and farthest squared distance to it.
    private bool Bound<TKernel>(in TKernel kernel, CentreSet centres, int start, int end)
        where TKernel : struct, IPointKernel
    {
        var d = kernel.Dimension;
        Grow(ref _lower, d);
        Grow(ref _upper, d);
        if (!kernel.Box(start, end, _lower.AsSpan(0, d), _upper.AsSpan(0, d)))
        {
            return false;
        }

        // Vectors of centres at a time: per coordinate, the gap from the box (0 inside it) and the
        // larger distance to its two sides.
        var kp = centres.Kp;
        Grow(ref _near, kp);
        Grow(ref _far, kp);
        Grow(ref _index, kp);
        var near = MemoryMarshal.Cast<double, Vector<double>>(_near.AsSpan(0, kp));
        var far = MemoryMarshal.Cast<double, Vector<double>>(_far.AsSpan(0, kp));
        near.Clear();
        far.Clear();
        for (var j = 0; j < d; j++)
        {
            var y = MemoryMarshal.Cast<double, Vector<double>>(centres.Transposed.AsSpan(j * kp, kp));
            var (lower, upper) = (new Vector<double>(_lower[j]), new Vector<double>(_upper[j]));
            for (var v = 0; v < y.Length; v++)
            {
                var below = lower - y[v];
                var above = y[v] - upper;
                var gap = Vector.Max(Vector.Max(below, above), Vector<double>.Zero);
                var span = Vector.Max(Vector.Abs(below), Vector.Abs(above));
                near[v] += gap * gap;
                far[v] += span * span;
            }
        }

        var (shrink, grow) = (new Vector<double>(1 - Margin), new Vector<double>(1 + Margin));
        for (var v = 0; v < near.Length; v++)
        {
            near[v] *= shrink;
            far[v] *= grow;
        }

        return true;
    }

    // The first n of _index, or the whole set when that is all of it.
    private CentreWindow Keep(CentreSet centres, double[]? logMass, int n)
    {
        var (k, d) = (centres.K, centres.Dimension);
        if (n == k)
        {
            return Everything(centres, logMass);
        }

        (All, K, Stride, Dimension) = (false, n, CentreSet.Pad(n), d);
        Grow(ref _ownTransposed, Stride * d);
        Grow(ref _ownNorms, Stride);
        Grow(ref _ownLogMass, Stride);
        for (var p = 0; p < Stride; p++)
        {
            var c = p < n ? _index[p] : -1;
            for (var j = 0; j < d; j++)
            {
                _ownTransposed[j * Stride + p] = c < 0 ? 0 : centres[c, j];
            }

            _ownNorms[p] = c < 0 ? 0 : centres.Norms[c];
            _ownLogMass[p] = c < 0 || logMass is null ? double.NegativeInfinity : logMass[c];
        }

        (_transposed, _norms, _logMass) = (_ownTransposed, _ownNorms, _ownLogMass);
        return this;
    }

    private static void Grow<T>(ref T[] array, int length)
    {
        if (array.Length < length)
        {
            array = new T[length];
        }
    }
}
