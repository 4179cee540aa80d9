using System.Diagnostics.CodeAnalysis;

namespace Salsa.Clustering.Parallel;

/// <summary>
/// Where each sum sits in a pass's partial (and in the totals folded from the partials), for the
/// kernels that write them and the algorithms that read them. Per-centre sums come first, centres
/// padded to <see cref="Kp"/>; coordinate sums are dimension-major (coordinate <c>j</c> of centre
/// <c>c</c> at <c>j·Kp + c</c> of its block), as the kernels accumulate them; a pass's scalars follow.
/// </summary>
/// <param name="Kp">Centres, padded to the vector width.</param>
/// <param name="Dimension">Coordinates per point.</param>
internal readonly record struct PassSums(int Kp, int Dimension)
{
    // E-step and Lloyd: masses [Kp], coordinate sums [D·Kp], then the pass's scalars.
    private int Scalars => Kp * (Dimension + 1);

    public static PassSums Of(CentreSet centres) => new(centres.Kp, centres.Dimension);

    /// <summary>E-step, Lloyd, scatter and cluster costs: the weight (soft or hard) of centre <paramref name="centre"/>.</summary>
    [SuppressMessage("Performance", "CA1822:Mark members as static", Justification = "Read beside the other offsets of the same layout.")]
    public int Mass(int centre) => centre;

    /// <summary>E-step and Lloyd: the weighted sum of coordinate <paramref name="coordinate"/> over centre <paramref name="centre"/>'s points.</summary>
    public int Sum(int centre, int coordinate) => Kp + coordinate * Kp + centre;

    /// <summary>E-step: Σ w·log Z (the free energy is −T times it over the total weight).</summary>
    public int LogPartition => Scalars;

    /// <summary>E-step: Σ w·max p (how hard the assignments are).</summary>
    public int Hardness => Scalars + 1;

    /// <summary>E-step: point–centre distances computed (the window's).</summary>
    public int Evaluated => Scalars + 2;

    /// <summary>E-step: point–centre pairs in all.</summary>
    public int Pairs => Scalars + 3;

    public int EStepLength => Scalars + 4;

    /// <summary>Lloyd: Σ w·d² to the nearest centre.</summary>
    public int Cost => Scalars;

    /// <summary>Lloyd: points whose nearest centre changed.</summary>
    public int Changed => Scalars + 1;

    public int LloydLength => Scalars + 2;

    /// <summary>Bounded Lloyd: Σ w·|x|² of centre <paramref name="centre"/>'s points (after the Lloyd sums).</summary>
    public int SquaredNorms(int centre) => Scalars + 2 + centre;

    public int BoundedLloydLength => Scalars + 2 + Kp;

    // Scatter: masses [Kp], then each centre's D×D scatter matrix.

    /// <summary>Scatter: element <paramref name="element"/> (row-major) of centre <paramref name="centre"/>'s scatter matrix.</summary>
    public int Scatter(int centre, int element) => Kp + centre * Dimension * Dimension + element;

    public int ScatterLength(int k) => Kp + k * Dimension * Dimension;

    // Scatter power: products [D·Kp] (dimension-major), Σ r·(x·v − y·v) [Kp], masses [Kp].

    /// <summary>Scatter power: coordinate <paramref name="coordinate"/> of centre <paramref name="centre"/>'s scatter times its axis (before the centre's own term).</summary>
    public int Product(int centre, int coordinate) => coordinate * Kp + centre;

    /// <summary>Scatter power: Σ r·(x − y)·v over centre <paramref name="centre"/>'s points.</summary>
    public int Projection(int centre) => Dimension * Kp + centre;

    /// <summary>Scatter power: the weight of centre <paramref name="centre"/>.</summary>
    public int PowerMass(int centre) => Dimension * Kp + Kp + centre;

    public int PowerLength => Dimension * Kp + 2 * Kp;

    // Cluster costs: weights [Kp], costs [Kp].

    /// <summary>Cluster costs: Σ w·d² of centre <paramref name="centre"/>'s points (its weight is at <see cref="Mass"/>).</summary>
    public int ClusterCost(int centre) => Kp + centre;

    public int ClusterCostsLength => 2 * Kp;
}
