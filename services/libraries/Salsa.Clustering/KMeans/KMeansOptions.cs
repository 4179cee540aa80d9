using Salsa.Clustering.Parallel;

namespace Salsa.Clustering.KMeans;

/// <summary>Parameters of weighted k-means (greedy k-means++ seeding, Lloyd iterations, restarts).</summary>
public sealed record KMeansOptions
{
    public int Clusters { get; init; } = 10;

    /// <summary>Independent seedings; the run with the lowest inertia wins (ties: the earliest).</summary>
    public int Restarts { get; init; } = 1;

    public int MaxIterations { get; init; } = 300;

    /// <summary>Stops when the inertia improves by less than this fraction (or no point changes cluster).</summary>
    public double Tolerance { get; init; } = 1e-9;

    /// <summary>Seed of the k-means++ sampling; restart r uses Seed + r.</summary>
    public int Seed { get; init; } = 1;

    /// <summary>
    /// Candidates drawn for each centre after the first; the one that lowers the cost most is kept
    /// (greedy k-means++). Null: 2 + ⌊ln K⌋, as scikit-learn. 1: the original k-means++ (one draw per centre).
    /// </summary>
    public int? SeedingTrials { get; init; }

    /// <summary>The candidates drawn per centre for <paramref name="clusters"/> centres.</summary>
    public int TrialsFor(int clusters) => SeedingTrials ?? 2 + (int)Math.Log(clusters);

    public ParallelismOptions Parallel { get; init; } = new();

    public void Validate(int points)
    {
        if (Clusters < 1 || Clusters > points)
        {
            throw RequestNames.Invalid(nameof(Clusters), $"(K) must be between 1 and the number of points ({points}); it is {Clusters}.");
        }

        if (Restarts < 1)
        {
            throw RequestNames.Invalid(nameof(Restarts), $"must be at least 1; it is {Restarts}.");
        }

        if (MaxIterations < 1)
        {
            throw RequestNames.Invalid(nameof(MaxIterations), $"must be at least 1; it is {MaxIterations}.");
        }

        if (SeedingTrials < 1)
        {
            throw RequestNames.Invalid(nameof(SeedingTrials), $"must be at least 1; it is {SeedingTrials}.");
        }

        if (!(Tolerance >= 0) || !double.IsFinite(Tolerance))
        {
            throw RequestNames.Invalid(nameof(Tolerance), $"must be finite and non-negative; it is {Tolerance}.");
        }

        Parallel.Validate();
    }
}

/// <summary>The best of the restarts.</summary>
public sealed record KMeansResult
{
    public required int Clusters { get; init; }

    public required int Dimension { get; init; }

    /// <summary>Centres, row-major.</summary>
    public required double[] Centres { get; init; }

    public required double[] ClusterWeights { get; init; }

    public required int[] ClusterSizes { get; init; }

    public required int[] Assignments { get; init; }

    /// <summary>Σ w·|x − centre(x)|².</summary>
    public required double Inertia { get; init; }

    public required int Iterations { get; init; }

    /// <summary>Which restart produced this result.</summary>
    public required int BestRestart { get; init; }

    /// <summary>Final inertia of every restart, in order.</summary>
    public required IReadOnlyList<double> RestartInertias { get; init; }

    /// <summary>Clusters re-seeded because they lost all their points.</summary>
    public required int EmptyClusterRepairs { get; init; }

    public required TimeSpan Elapsed { get; init; }
}
