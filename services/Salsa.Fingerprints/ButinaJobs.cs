using Google.Protobuf;
using Microsoft.Extensions.Options;
using Salsa.Clustering.Fingerprints;
using Salsa.Contracts.Fingerprints;
using Salsa.Contracts.Operations;
using Salsa.Hosting;
using Salsa.Hosting.Clustering;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Jobs;
using Salsa.Store;
using Artifacts = Salsa.Contracts.Common.Artifacts;

namespace Salsa.Fingerprints;

/// <summary>A Butina job's clusters as a search index takes them.</summary>
public sealed record ButinaClustering(int[] Assignments, int[] Centroids);

/// <summary>
/// Taylor–Butina clustering as jobs, shared by the REST and gRPC faces: a request is checked against
/// its dataset and the limits before it is accepted, then runs on the job's Salsa.Ccr ranks with
/// progress per phase; per-compound cluster ids become the <c>assignments</c> artifact.
/// </summary>
public sealed class ButinaJobs(JobManager jobs, DatasetCatalog datasets, IOptions<ServiceLimits> serviceLimits)
{
    private readonly ServiceLimits _limits = serviceLimits.Value;

    public const string Kind = "butina";

    public async Task<JobRecord> StartAsync(StartButinaRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        RequestParameters.Check(request);
        _limits.CheckParameters(request);
        var info = await datasets.GetRequiredAsync(DatasetCatalog.ParseId(request.DatasetId), cancellationToken);
        FingerprintDatasets.RequireBinary(info);
        _limits.CheckPoints(info.Count, info.Bits);
        return await jobs.SubmitAsync(Kind, request, info.Id, context => RunAsync(context, info.Id, request), cancellationToken);
    }

    public async Task<(JobRecord Job, Contracts.Fingerprints.ButinaResult Result)> GetResultAsync(Guid id, CancellationToken cancellationToken)
    {
        await jobs.RequireKindAsync(id, Kind, cancellationToken);
        return await jobs.GetResultAsync<Contracts.Fingerprints.ButinaResult>(id, cancellationToken);
    }

    /// <summary>
    /// A Butina job a search of <paramref name="dataset"/> may prune through: one of this service's
    /// Butina jobs, on that dataset, succeeded. Reads only the job record.
    /// </summary>
    public async Task<JobRecord> RequireSearchableAsync(Guid id, DatasetInfo dataset, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(dataset);
        var job = await jobs.GetRequiredAsync(id, cancellationToken);
        if (job.Kind != Kind)
        {
            throw new ArgumentException($"Job {id} is not a {Kind} job (its kind is {job.Kind}); a search prunes through the clusters of a {Kind} job.");
        }

        if (job.DatasetId != dataset.Id)
        {
            throw new ArgumentException($"Butina job {id} clustered dataset {job.DatasetId}, not dataset {dataset.Id} that is searched; cluster that dataset first.");
        }

        return job.State == JobState.Succeeded
            ? job
            : throw new ConflictException($"Butina job {id} is {JobViews.StateName(job.State)}; a search can prune through it once it has succeeded.");
    }

    /// <summary>The clusters of a succeeded Butina job: its assignments artifact and its centroids.</summary>
    public async Task<ButinaClustering> ReadClusteringAsync(Guid id, CancellationToken cancellationToken)
    {
        var (_, result) = await GetResultAsync(id, cancellationToken);
        var artifact = await jobs.GetArtifactAsync(id, Artifacts.Assignments, cancellationToken);
        return new ButinaClustering(ArtifactFormats.ReadInt32s(artifact.Data), [.. result.Cluster.Select(c => c.Centroid)]);
    }

    private async Task<JobOutcome> RunAsync(JobContext context, Guid datasetId, StartButinaRequest request)
    {
        var (info, points) = await datasets.LoadBinaryAsync(datasetId, context.CancellationToken);
        var options = RequestParameters.Bind(request, new ButinaOptions { Parallel = context.Parallelism });
        var result = TaylorButina.Run(points, options, context.ClusteringProgress(), context.CancellationToken);
        var message = result.ToMessage(info.Count);
        await context.SaveArtifactAsync(Artifacts.Assignments, Artifacts.OctetStream, ArtifactFormats.Int32s(result.Assignments));
        await context.SaveArtifactAsync(Artifacts.Clustering, Artifacts.Protobuf, message.Clustering.ToByteArray());
        return new JobOutcome(message);
    }
}
