using Google.Protobuf;
using Microsoft.Extensions.Options;
using Salsa.Contracts.Common;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Store;

namespace Salsa.Hosting.Clustering;

/// <summary>A request to cluster a stored dense or binary dataset into some number of clusters.</summary>
public interface IVectorClusteringRequest
{
    Guid DatasetId { get; }

    /// <summary>The clusters asked for (checked against <see cref="ServiceLimits.MaxClusters"/>).</summary>
    int RequestedClusters { get; }

    /// <summary>Throws a clear <see cref="ArgumentException"/> when the request does not fit a dataset of <paramref name="points"/> points.</summary>
    void Validate(int points);

    /// <summary>
    /// Throws a <see cref="Errors.LimitExceededException"/> when the (valid) request asks for more work
    /// than <paramref name="limits"/> allow: iterations, restarts, temperatures.
    /// </summary>
    void CheckLimits(ServiceLimits limits);
}

/// <summary>
/// The application service of a vector-clustering algorithm, shared by its REST and gRPC faces:
/// a request is checked against its dataset and the limits before it is accepted, then runs as a
/// job on the compute dispatcher; the per-point assignments become the <c>assignments</c> artifact,
/// the clustering in its shared shape (<see cref="ClusteringResult"/>) the <c>clustering</c> artifact,
/// and the result message — that clustering and what is the algorithm's own — the job's result, one
/// shape for gRPC, REST and the job record.
/// </summary>
public abstract class VectorClusteringJobs<TRequest, TResult>(JobManager jobs, DatasetCatalog datasets, IOptions<ServiceLimits> limits)
    where TRequest : IVectorClusteringRequest
    where TResult : class, IMessage
{
    protected ServiceLimits Limits { get; } = limits.Value;

    /// <summary>The job kind, e.g. <c>annealing</c>.</summary>
    public abstract string Kind { get; }

    public async Task<JobRecord> StartAsync(TRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        var info = await datasets.GetRequiredAsync(request.DatasetId, cancellationToken).ConfigureAwait(false);
        DatasetCatalog.RequireVectors(info);
        Limits.CheckClusters(request.RequestedClusters);
        request.Validate(info.Count);
        request.CheckLimits(Limits);
        return await jobs.SubmitAsync(Kind, request, info.Id, context => RunAsync(context, request), cancellationToken).ConfigureAwait(false);
    }

    public Task<(JobRecord Job, TResult Result)> GetResultAsync(Guid id, CancellationToken cancellationToken) =>
        jobs.GetResultAsync<TResult>(id, cancellationToken);

    /// <summary>Runs the algorithm on the job's ranks; returns per-point assignments and the result.</summary>
    protected abstract (int[] Assignments, TResult Result) Cluster(TRequest request, DatasetInfo info, VectorInput input, JobContext context);

    /// <summary>Runs the algorithm where it runs for this input: on the job's ranks by default; an algorithm that can run on the grid overrides this.</summary>
    protected virtual Task<(int[] Assignments, TResult Result)> ClusterAsync(TRequest request, DatasetInfo info, VectorInput input, JobContext context) =>
        Task.FromResult(Cluster(request, info, input, context));

    /// <summary>The result's clusters in the shape every clustering job shares.</summary>
    protected abstract ClusteringResult ClusteringOf(TResult result);

    private async Task<JobOutcome> RunAsync(JobContext context, TRequest request)
    {
        var (info, input) = await datasets.LoadVectorsAsync(request.DatasetId, context.CancellationToken).ConfigureAwait(false);
        var (assignments, result) = await ClusterAsync(request, info, input, context).ConfigureAwait(false);
        await context.SaveArtifactAsync(Artifacts.Assignments, Artifacts.OctetStream, ArtifactFormats.Int32s(assignments)).ConfigureAwait(false);
        await context.SaveArtifactAsync(Artifacts.Clustering, Artifacts.Protobuf, ClusteringOf(result).ToByteArray()).ConfigureAwait(false);
        return new JobOutcome(result);
    }
}
