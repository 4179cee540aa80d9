using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Annealing;

/// <summary>Parameters of deterministic-annealing clustering.</summary>
public sealed record AnnealingOptions
{
    /// <summary>Kmax: clusters split until there are this many.</summary>
    public int MaxClusters { get; init; } = 10;

    /// <summary>
    /// T ← factor·T after each temperature (0 &lt; factor &lt; 1) while clusters remain to split, or
    /// straight to just below the next critical temperature when that is lower; with Kmax clusters,
    /// faster (T ← T/5) until the assignments are hard.
    /// </summary>
    public double CoolingFactor { get; init; } = 0.95;

    /// <summary>
    /// T ← <see cref="CoolingFactor"/>·T at every step from the first temperature to the last: the
    /// classic geometric schedule, without the jumps to critical temperatures and the faster cooling
    /// once Kmax clusters exist. Far slower; for comparison with it and for runs that must take long.
    /// </summary>
    public bool FixedCooling { get; init; }

    /// <summary>First temperature; by default just above the first critical temperature (2 λmax of the data).</summary>
    public double? StartTemperature { get; init; }

    /// <summary>Lowest temperature; by default <see cref="DefaultTemperatureRange"/> of the first.</summary>
    public double? MinTemperature { get; init; }

    /// <summary>The lowest temperature as a fraction of the first when <see cref="MinTemperature"/> is not set.</summary>
    public const double DefaultTemperatureRange = 1e-6;

    /// <summary>
    /// Temperatures visited at most: cooling stops after this many even above <see cref="MinTemperature"/>
    /// (<see cref="ScheduledTemperatures"/> tells beforehand whether a schedule fits, when it can).
    /// </summary>
    public int MaxTemperatures { get; init; } = 100_000;

    /// <summary>EM iterations allowed at one temperature.</summary>
    public int MaxIterationsPerTemperature { get; init; } = 300;

    /// <summary>
    /// Converged at a temperature T when no centre moves by more than √(Tolerance·T) in an iteration:
    /// centres placed to a fixed fraction of the temperature's length scale, coarse while clusters are
    /// wide and fine as they harden.
    /// </summary>
    public double Tolerance { get; init; } = 1e-3;

    /// <summary>Offset of each of a split's two children from the parent along its principal axis, in units of its standard deviation.</summary>
    public double SplitPerturbation { get; init; } = 0.5;

    /// <summary>With Kmax clusters, stop cooling once this share of the weight is assigned with probability ≥ …</summary>
    public double StopHardness { get; init; } = 0.995;

    /// <summary>Lloyd iterations at T = 0 after annealing (the zero-temperature limit of DA is k-means).</summary>
    public int FinalRefinementIterations { get; init; } = 100;

    /// <summary>
    /// Split–merge moves tried at T = 0 (each kept only if it lowers the cost); 0 turns them off.
    /// They let a capped annealing move clusters from wide, light regions to dense, heavy ones.
    /// </summary>
    public int SplitMergeAttempts { get; init; } = 24;

    public ParallelismOptions Parallel { get; init; } = new();

    public void Validate(int points)
    {
        if (MaxClusters < 1 || MaxClusters > points)
        {
            throw RequestNames.Invalid(nameof(MaxClusters), $"(Kmax) must be between 1 and the number of points ({points}); it is {MaxClusters}.");
        }

        if (CoolingFactor is <= 0 or >= 1 || !double.IsFinite(CoolingFactor))
        {
            throw RequestNames.Invalid(nameof(CoolingFactor), $"must lie strictly between 0 and 1; it is {CoolingFactor}.");
        }

        if (StartTemperature is { } start && (!double.IsFinite(start) || start <= 0))
        {
            throw RequestNames.Invalid(nameof(StartTemperature), $"must be positive and finite; it is {start}.");
        }

        if (MinTemperature is { } min && (!double.IsFinite(min) || min <= 0))
        {
            throw RequestNames.Invalid(nameof(MinTemperature), $"must be positive and finite; it is {min}.");
        }

        if (StartTemperature is { } first && MinTemperature is { } lowest && lowest > first)
        {
            throw RequestNames.Invalid(nameof(MinTemperature), $"must not be above startTemperature ({first}); it is {lowest}. Cooling goes from the start temperature down to the minimum.");
        }

        if (MaxTemperatures < 1)
        {
            throw RequestNames.Invalid(nameof(MaxTemperatures), $"must be at least 1; it is {MaxTemperatures}.");
        }

        if (MaxIterationsPerTemperature < 1)
        {
            throw RequestNames.Invalid(nameof(MaxIterationsPerTemperature), $"must be at least 1; it is {MaxIterationsPerTemperature}.");
        }

        if (!(Tolerance > 0) || !double.IsFinite(Tolerance))
        {
            throw RequestNames.Invalid(nameof(Tolerance), $"must be positive and finite; it is {Tolerance}.");
        }

        if (!(SplitPerturbation > 0) || !double.IsFinite(SplitPerturbation))
        {
            throw RequestNames.Invalid(nameof(SplitPerturbation), $"must be positive and finite; it is {SplitPerturbation}.");
        }

        if (StopHardness is <= 0 or > 1 || double.IsNaN(StopHardness))
        {
            throw RequestNames.Invalid(nameof(StopHardness), $"must lie in (0, 1]; it is {StopHardness}.");
        }

        if (FinalRefinementIterations < 0)
        {
            throw RequestNames.Invalid(nameof(FinalRefinementIterations), $"must not be negative; it is {FinalRefinementIterations}.");
        }

        if (SplitMergeAttempts < 0)
        {
            throw RequestNames.Invalid(nameof(SplitMergeAttempts), $"must not be negative; it is {SplitMergeAttempts}.");
        }

        Parallel.Validate();
    }

    /// <summary>
    /// The most temperatures the cooling schedule can visit, from the first down to the lowest by
    /// <see cref="CoolingFactor"/> (runs take fewer: cooling jumps to the next critical temperature
    /// and is faster with Kmax clusters, and a run that reaches Kmax hard clusters stops); null when
    /// that depends on the data: a <see cref="MinTemperature"/> without a <see cref="StartTemperature"/>,
    /// whose default is computed from the data. Call on validated options.
    /// </summary>
    public long? ScheduledTemperatures()
    {
        // ln(min / start), taken as a difference of logarithms: the ratio itself under- or overflows
        // for schedules such as 1e200 down to 1e-200 (about 18,000 temperatures at 0.95).
        double logRange;
        if (MinTemperature is not { } min)
        {
            logRange = Math.Log(DefaultTemperatureRange);
        }
        else if (StartTemperature is { } start)
        {
            logRange = Math.Log(min) - Math.Log(start);
        }
        else
        {
            return null;
        }

        // The first temperature, then one per cooling step until the temperature is at most the lowest.
        var steps = logRange >= 0 ? 0 : Math.Ceiling(logRange / Math.Log(CoolingFactor));
        return steps >= long.MaxValue - 1 ? long.MaxValue : (long)steps + 1;
    }
}

/// <summary>One temperature of the annealing schedule.</summary>
public sealed record AnnealingStep(double Temperature, int Clusters, double FreeEnergy, int Iterations);

/// <summary>The outcome of a deterministic-annealing run.</summary>
public sealed record AnnealingResult
{
    public required int Clusters { get; init; }

    public required int Dimension { get; init; }

    /// <summary>Centres, row-major: centre k at [k·Dimension, (k+1)·Dimension).</summary>
    public required double[] Centres { get; init; }

    /// <summary>Weight of the points hard-assigned to each cluster.</summary>
    public required double[] ClusterWeights { get; init; }

    /// <summary>Points hard-assigned to each cluster.</summary>
    public required int[] ClusterSizes { get; init; }

    /// <summary>Each point's cluster (nearest final centre).</summary>
    public required int[] Assignments { get; init; }

    /// <summary>Σ w·|x − centre(x)|² over all points.</summary>
    public required double WeightedCost { get; init; }

    /// <summary>Temperature, cluster count and free energy (per unit weight) at each temperature.</summary>
    public required IReadOnlyList<AnnealingStep> Trajectory { get; init; }

    /// <summary>EM iterations over all temperatures.</summary>
    public required int Iterations { get; init; }

    /// <summary>
    /// Share of the point–centre pairs of all E-steps whose distance was computed: the others belonged
    /// to centres a block of points provably could not reach (<c>CentreWindow</c>).
    /// </summary>
    public double EvaluatedShare { get; init; } = 1;

    public required TimeSpan Elapsed { get; init; }
}
