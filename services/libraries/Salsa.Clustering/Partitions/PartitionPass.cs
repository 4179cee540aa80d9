using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Partitions;

/// <summary>What one pass of deterministic annealing over the points adds up.</summary>
public enum PassKind
{
    /// <summary>Weighted coordinate sums and the total weight (the data's centroid).</summary>
    Centroid,

    /// <summary>Σ w·|x − y₀|² about the one centre (the data's spread).</summary>
    Spread,

    /// <summary>The E-step at a temperature: masses, centre numerators, Σ w·log Z, Σ w·max p.</summary>
    EStep,

    /// <summary>Every cluster's full weighted scatter matrix (few dimensions).</summary>
    Scatter,

    /// <summary>One power-iteration product of every cluster's scatter with its axis (many dimensions).</summary>
    ScatterPower,

    /// <summary>A Lloyd step: nearest-centre weights, sums, cost and changed assignments.</summary>
    Lloyd,

    /// <summary>Weight and cost of each cluster under nearest-centre assignment.</summary>
    ClusterCosts,

    /// <summary>
    /// One power-iteration product of every cluster's scatter at T = 0: each point in the cluster it is
    /// assigned to (the assignments made under <see cref="PartitionPass.AssignedUnder"/>, the current centres).
    /// </summary>
    AssignedPower,

    /// <summary>
    /// A Lloyd step that skips the points whose distance bounds show their centre cannot have changed
    /// (on this machine's ranks, fingerprints): the sums that changed, or all of them when the bounds
    /// are new (<see cref="PartitionPass.Shifts"/> null).
    /// </summary>
    BoundedLloyd,
}

/// <summary>
/// One reduction over the points: everything a partition needs to compute its share — the centres,
/// their log masses, the temperature and the pass's own vectors — and nothing it keeps between
/// passes, except the assignments a Lloyd pass counts changes against, which the pass names by the
/// centres they were made under (<see cref="AssignedUnder"/>). A partition that lost them (moved to
/// another silo) remakes them from those centres, so its share is the same bits either way.
/// </summary>
public sealed record PartitionPass
{
    private CentreSet? _set;
    private double[]? _rows;

    internal PartitionPass(PassKind kind, int length, int planLength, int? blockSize, CentreSet centres, double[] logMass)
    {
        (Kind, Length, PlanLength, BlockSize, _set, LogMass) = (kind, length, planLength, blockSize, centres, logMass);
        (Kp, K, Dimension) = (centres.Kp, centres.K, centres.Dimension);
    }

    private PartitionPass(PassKind kind, int length, int planLength, int? blockSize, int kp, int k, int dimension, double[] centres, double[] logMass)
    {
        (Kind, Length, PlanLength, BlockSize, Kp, K, Dimension, _rows, LogMass) = (kind, length, planLength, blockSize, kp, k, dimension, centres, logMass);
    }

    /// <summary>A pass received from elsewhere (a coordinator on another silo), checked for shape.</summary>
    public static PartitionPass Create(
        PassKind kind, int length, int planLength, int? blockSize, int kp, int k, int dimension, double[] centres, double[] logMass,
        double inverseTemperature, double[]? vectorsT, double[]? yDotV, double[]? assignedUnder)
    {
        ArgumentNullException.ThrowIfNull(centres);
        ArgumentNullException.ThrowIfNull(logMass);
        if (dimension < 1 || k < 0 || kp < k || kp != CentreSet.Pad(kp) || centres.Length != k * dimension || logMass.Length != kp
            || length < 1 || planLength < length || (vectorsT is not null && vectorsT.Length != dimension * kp) || (yDotV is not null && yDotV.Length != kp)
            || (assignedUnder is not null && assignedUnder.Length != centres.Length))
        {
            throw new ClusteringInputException($"An annealing pass of {k} of {kp} centres in {dimension} dimensions does not fit its arrays.", nameof(centres));
        }

        return new PartitionPass(kind, length, planLength, blockSize, kp, k, dimension, centres, logMass)
        {
            InverseTemperature = inverseTemperature,
            VectorsT = vectorsT,
            YDotV = yDotV,
            AssignedUnder = assignedUnder,
        };
    }

    public PassKind Kind { get; }

    /// <summary>Doubles in the pass's partial sums.</summary>
    public int Length { get; }

    /// <summary>The run's largest partial (with <see cref="BlockSize"/>, what fixes a partition's blocks).</summary>
    public int PlanLength { get; }

    public int? BlockSize { get; }

    /// <summary>Capacity of the centre layout (Kmax rounded up to the SIMD width).</summary>
    public int Kp { get; }

    /// <summary>Centres in use.</summary>
    public int K { get; }

    public int Dimension { get; }

    /// <summary>Log masses of the <see cref="Kp"/> centres (−∞ beyond <see cref="K"/>).</summary>
    public double[] LogMass { get; }

    /// <summary>1/T (0 for the infinite temperature of the first scatter).</summary>
    public double InverseTemperature { get; init; }

    /// <summary>The power iteration's axes, transposed (<see cref="Dimension"/> × <see cref="Kp"/>).</summary>
    public double[]? VectorsT { get; init; }

    /// <summary>y_k·v_k per centre, for the power iteration.</summary>
    public double[]? YDotV { get; init; }

    /// <summary>For a Lloyd or assigned-power pass: the centres (row-major) the previous assignments were made under; null while none were made (all 0).</summary>
    public double[]? AssignedUnder { get; init; }

    /// <summary>
    /// For an assigned-power pass here: only this cluster's points are needed (the others' products
    /// are not read). Not sent to other silos — their partitions compute every cluster, the same bits
    /// for this one.
    /// </summary>
    internal int? OnlyCluster { get; init; }

    /// <summary>For a bounded Lloyd pass: how far each centre moved since the points' bounds were set; null to set them anew.</summary>
    internal double[]? Shifts { get; init; }

    /// <summary>The centres, row-major (<see cref="K"/> × <see cref="Dimension"/>).</summary>
    public double[] Centres => _rows ??= _set!.ToRowMajor();

    /// <summary>The centres in the kernels' layout: the sender's own, or rebuilt from the rows received.</summary>
    internal CentreSet CentreSet
    {
        get
        {
            if (_set is null)
            {
                var set = new CentreSet(Dimension, Kp);
                set.Set(_rows, K);
                _set = set;
            }

            return _set;
        }
    }
}
