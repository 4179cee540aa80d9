using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.Mds;

public enum SmacofInitialization
{
    /// <summary>Classical (Torgerson) MDS: the top eigenvectors of −½·J·Δ²·J, by subspace iteration.</summary>
    Torgerson,

    /// <summary>Coordinates drawn uniformly from [−1, 1] with <see cref="SmacofOptions.Seed"/>.</summary>
    Random,
}

/// <summary>Parameters of SMACOF multidimensional scaling.</summary>
public sealed record SmacofOptions
{
    /// <summary>The square dissimilarity matrix is n² single-precision values; beyond this .NET's array limit is reached.</summary>
    public const int LargestSupportedItems = 46_340;

    /// <summary>Embedding dimension: 2 or 3.</summary>
    public int Dimensions { get; init; } = 2;

    /// <summary>Guttman transforms at most.</summary>
    public int MaxIterations { get; init; } = 300;

    /// <summary>Stops when the stress improves by less than this fraction of itself in one iteration.</summary>
    public double Tolerance { get; init; } = 1e-6;

    /// <summary>Largest number of items accepted (the run holds an n×n matrix: 400 MB at 10,000).</summary>
    public int MaxItems { get; init; } = 10_000;

    public SmacofInitialization Initialization { get; init; } = SmacofInitialization.Torgerson;

    /// <summary>Subspace iterations allowed for the Torgerson start.</summary>
    public int TorgersonIterations { get; init; } = 50;

    /// <summary>Seed of the random start.</summary>
    public int Seed { get; init; } = 1;

    public ParallelismOptions Parallel { get; init; } = new();

    internal void Validate(int items)
    {
        if (Dimensions is not (2 or 3))
        {
            throw RequestNames.Invalid(nameof(Dimensions), $"(the embedding dimension) must be 2 or 3; it is {Dimensions}.");
        }

        if (MaxItems is < 1 or > LargestSupportedItems)
        {
            throw RequestNames.Invalid(nameof(MaxItems), $"must be between 1 and {LargestSupportedItems}; it is {MaxItems}.");
        }

        if (items > MaxItems)
        {
            throw new ClusteringInputException($"{items} items are more than the {MaxItems} allowed (MaxItems).", nameof(MaxItems));
        }

        if (items < Dimensions + 1)
        {
            throw new ClusteringInputException($"An embedding in {Dimensions} dimensions needs at least {Dimensions + 1} items; there are {items}.", nameof(Dimensions));
        }

        if (MaxIterations < 1)
        {
            throw RequestNames.Invalid(nameof(MaxIterations), $"must be at least 1; it is {MaxIterations}.");
        }

        if (TorgersonIterations < 1)
        {
            throw RequestNames.Invalid(nameof(TorgersonIterations), $"must be at least 1; it is {TorgersonIterations}.");
        }

        if (!(Tolerance >= 0) || !double.IsFinite(Tolerance))
        {
            throw RequestNames.Invalid(nameof(Tolerance), $"must be finite and non-negative; it is {Tolerance}.");
        }

        if (!Enum.IsDefined(Initialization))
        {
            throw new ClusteringInputException($"Unknown initialization {Initialization}.", nameof(Initialization));
        }

        Parallel.Validate();
    }
}

/// <summary>The outcome of a SMACOF run.</summary>
public sealed record SmacofResult
{
    public required int Count { get; init; }

    public required int Dimensions { get; init; }

    /// <summary>Item i at [i·Dimensions, (i+1)·Dimensions), centred on the origin (unweighted mean zero).</summary>
    public required double[] Coordinates { get; init; }

    /// <summary>Raw stress σ = Σ_{i&lt;j} w_ij (d_ij − δ_ij)², w_ij = w_i·w_j, of the returned coordinates.</summary>
    public required double Stress { get; init; }

    /// <summary>σ / Σ_{i&lt;j} w_ij δ_ij² of the returned coordinates.</summary>
    public required double NormalizedStress { get; init; }

    /// <summary>Guttman transforms applied to reach the returned coordinates.</summary>
    public required int Iterations { get; init; }

    /// <summary>True when the stress stopped improving by the tolerance before MaxIterations.</summary>
    public required bool Converged { get; init; }

    /// <summary>Normalised stress of the start and after each transform: entry t is that of X_t.</summary>
    public required IReadOnlyList<double> StressTrajectory { get; init; }

    /// <summary>Raw stress σ of the start and after each transform.</summary>
    public required IReadOnlyList<double> RawStressTrajectory { get; init; }

    public required SmacofInitialization Initialization { get; init; }

    public required TimeSpan Elapsed { get; init; }

    public ReadOnlySpan<double> Coordinate(int item) => Coordinates.AsSpan(item * Dimensions, Dimensions);
}
