using System.ComponentModel.DataAnnotations;
using System.Globalization;
using Salsa.Clustering.Fingerprints;
using Salsa.Clustering.Parallel;
using Salsa.Hosting.Datasets;

namespace Salsa.Fingerprints;

/// <summary>A Taylor–Butina clustering of a stored fingerprint dataset.</summary>
public sealed record ButinaRequest
{
    /// <summary>A binary dataset (e.g. the fingerprints of a chem import).</summary>
    public required Guid DatasetId { get; init; }

    /// <summary>Tanimoto distance cut-off (1 − similarity), strictly between 0 and 1; default 0.35.</summary>
    [Range(0d, 1d, MinimumIsExclusive = true, MaximumIsExclusive = true)]
    public double? Cutoff { get; init; }

    public ButinaOptions ToOptions(ParallelismOptions parallel)
    {
        var defaults = new ButinaOptions();
        return defaults with { Cutoff = Cutoff ?? defaults.Cutoff, Parallel = parallel };
    }

    /// <summary>Refuses a cut-off the algorithm would refuse, before the job is accepted.</summary>
    public void Validate()
    {
        var cutoff = ToOptions(new()).Cutoff;
        if (!(cutoff > 0 && cutoff < 1))
        {
            throw new ArgumentException(string.Create(CultureInfo.InvariantCulture,
                $"The Tanimoto distance cut-off must lie strictly between 0 and 1 (0.35 is similarity ≥ 0.65); it is {cutoff}."));
        }
    }

    public static ButinaRequest From(Contracts.Fingerprints.StartButinaRequest request)
    {
        ArgumentNullException.ThrowIfNull(request);
        return new ButinaRequest
        {
            DatasetId = DatasetCatalog.ParseId(request.DatasetId),
            Cutoff = request.HasCutoff ? request.Cutoff : null,
        };
    }
}
