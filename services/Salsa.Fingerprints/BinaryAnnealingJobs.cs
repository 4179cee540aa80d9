using Salsa.Contracts.Operations;
using Salsa.Hosting.Clustering.Annealing;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Store;

namespace Salsa.Fingerprints;

/// <summary>
/// Deterministic annealing of fingerprints: the annealing service's jobs (same request, algorithm
/// and result), refusing anything but a binary dataset — v1's <c>StartAnnealing</c> and
/// <c>GetAnnealingResult</c> of this service.
/// </summary>
public sealed class BinaryAnnealingJobs(AnnealingJobs annealing, JobManager jobs, DatasetCatalog datasets)
{
    public async Task<JobRecord> StartAsync(Contracts.Annealing.StartAnnealingRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        RequestParameters.Check(request);
        FingerprintDatasets.RequireBinary(await datasets.GetRequiredAsync(DatasetCatalog.ParseId(request.DatasetId), cancellationToken));
        return await annealing.StartAsync(request, cancellationToken);
    }

    public async Task<(JobRecord Job, Contracts.Annealing.AnnealingResult Result)> GetResultAsync(Guid id, CancellationToken cancellationToken)
    {
        await jobs.RequireKindAsync(id, annealing.Kind, cancellationToken);
        return await annealing.GetResultAsync(id, cancellationToken);
    }
}
