using System.ComponentModel.DataAnnotations;
using System.Globalization;
using Salsa.Clustering.Annealing;
using Salsa.Clustering.Parallel;
using Salsa.Hosting.Datasets;

namespace Salsa.Hosting.Clustering.Annealing;

/// <summary>A deterministic-annealing run of a stored dataset; unset options take the algorithm's defaults.</summary>
public sealed record AnnealingRequest : IVectorClusteringRequest
{
    /// <summary>A dense or binary dataset (upload through /api/datasets, or from the census or chem service).</summary>
    public required Guid DatasetId { get; init; }

    /// <summary>Kmax: clusters split until there are this many.</summary>
    [Range(1, int.MaxValue)]
    public required int MaxClusters { get; init; }

    /// <summary>T ← factor·T after each temperature while clusters remain to split, or straight to just below the next critical temperature when that is lower (default 0.95).</summary>
    [Range(0d, 1d, MinimumIsExclusive = true, MaximumIsExclusive = true)]
    public double? CoolingFactor { get; init; }

    /// <summary>First temperature (default: just above the data's first critical temperature).</summary>
    [Range(0d, double.MaxValue, MinimumIsExclusive = true)]
    public double? StartTemperature { get; init; }

    /// <summary>True: T ← coolingFactor·T at every step (the classic geometric schedule, far slower).</summary>
    public bool? FixedCooling { get; init; }

    /// <summary>Lowest temperature, at most the start (default: 10⁻⁶ of the start).</summary>
    [Range(0d, double.MaxValue, MinimumIsExclusive = true)]
    public double? MinTemperature { get; init; }

    [Range(1, int.MaxValue)]
    public int? MaxIterationsPerTemperature { get; init; }

    [Range(0d, double.MaxValue, MinimumIsExclusive = true)]
    public double? Tolerance { get; init; }

    [Range(0, int.MaxValue)]
    public int? SplitMergeAttempts { get; init; }

    /// <summary>The algorithm's options; cooling stops after <paramref name="maxTemperatures"/> temperatures (by default the algorithm's cap).</summary>
    public AnnealingOptions ToOptions(ParallelismOptions parallel, int? maxTemperatures = null)
    {
        var defaults = new AnnealingOptions();
        return defaults with
        {
            MaxClusters = MaxClusters,
            CoolingFactor = CoolingFactor ?? defaults.CoolingFactor,
            FixedCooling = FixedCooling ?? defaults.FixedCooling,
            StartTemperature = StartTemperature,
            MinTemperature = MinTemperature,
            MaxIterationsPerTemperature = MaxIterationsPerTemperature ?? defaults.MaxIterationsPerTemperature,
            Tolerance = Tolerance ?? defaults.Tolerance,
            SplitMergeAttempts = SplitMergeAttempts ?? defaults.SplitMergeAttempts,
            MaxTemperatures = maxTemperatures ?? defaults.MaxTemperatures,
            Parallel = parallel,
        };
    }

    int IVectorClusteringRequest.RequestedClusters => MaxClusters;

    public void Validate(int points) => ToOptions(new()).Validate(points);

    public void CheckLimits(ServiceLimits limits)
    {
        ArgumentNullException.ThrowIfNull(limits);
        limits.CheckIterations(MaxIterationsPerTemperature, "maxIterationsPerTemperature");
        limits.CheckSplitMergeAttempts(SplitMergeAttempts);
        var options = ToOptions(new());
        var from = StartTemperature is { } start ? start.ToString("R", CultureInfo.InvariantCulture) : "the start temperature";
        var to = MinTemperature is { } min ? min.ToString("R", CultureInfo.InvariantCulture) : "10⁻⁶ of it";
        limits.CheckTemperatures(options.ScheduledTemperatures(), string.Create(CultureInfo.InvariantCulture, $"coolingFactor {options.CoolingFactor:R} from {from} down to {to}"));
    }

    public static AnnealingRequest From(Contracts.Annealing.StartAnnealingRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        return new AnnealingRequest
        {
            DatasetId = DatasetCatalog.ParseId(request.DatasetId),
            MaxClusters = request.MaxClusters,
            CoolingFactor = request.HasCoolingFactor ? request.CoolingFactor : null,
            FixedCooling = request.HasFixedCooling ? request.FixedCooling : null,
            StartTemperature = request.HasStartTemperature ? request.StartTemperature : null,
            MinTemperature = request.HasMinTemperature ? request.MinTemperature : null,
            MaxIterationsPerTemperature = request.HasMaxIterationsPerTemperature ? request.MaxIterationsPerTemperature : null,
            Tolerance = request.HasTolerance ? request.Tolerance : null,
            SplitMergeAttempts = request.HasSplitMergeAttempts ? request.SplitMergeAttempts : null,
        };
    }
}
