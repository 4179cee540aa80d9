using Google.Protobuf;
using Microsoft.Extensions.Options;
using Salsa.Clustering.Parallel;
using Salsa.Contracts.Common;
using Salsa.Contracts.Operations;
using Salsa.Hosting.Datasets;
using Salsa.Hosting.Jobs;
using Salsa.Store;

namespace Salsa.Hosting.Clustering;

/// <summary>
/// The application service of a vector-clustering algorithm, shared by its REST and gRPC faces:
/// the request is its proto message, checked by its fields' rules, against its dataset and the
/// limits before it is accepted; its parameters bound to the algorithm's options, it runs as a
/// job on the compute dispatcher; the per-point assignments become the <c>assignments</c> artifact,
/// the clustering in its shared shape (<see cref="ClusteringResult"/>) the <c>clustering</c> artifact,
/// and the result message — that clustering and what is the algorithm's own — the job's result, one
/// shape for gRPC, REST and the job record.
/// </summary>
public abstract class VectorClusteringJobs<TRequest, TOptions, TResult>(JobManager jobs, DatasetCatalog datasets, IOptions<ServiceLimits> limits)
    where TRequest : class, IMessage
    where TOptions : class
    where TResult : class, IMessage
{
    protected ServiceLimits Limits { get; } = limits.Value;

    /// <summary>The job kind, e.g. <c>annealing</c>.</summary>
    public abstract string Kind { get; }

    public async Task<JobRecord> StartAsync(TRequest request, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(request);
        RequestParameters.Check(request);
        Limits.CheckParameters(request);
        var info = await datasets.GetRequiredAsync(DatasetCatalog.ParseId(DatasetOf(request)), cancellationToken).ConfigureAwait(false);
        DatasetCatalog.RequireVectors(info);
        var options = OptionsOf(request, new ParallelismOptions());
        Validate(options, info.Count);
        CheckLimits(options);
        return await jobs.SubmitAsync(Kind, request, info.Id, context => RunAsync(context, info.Id, request), cancellationToken).ConfigureAwait(false);
    }

    public Task<(JobRecord Job, TResult Result)> GetResultAsync(Guid id, CancellationToken cancellationToken) =>
        jobs.GetResultAsync<TResult>(id, cancellationToken);

    /// <summary>The request's dataset id, as given.</summary>
    protected abstract string DatasetOf(TRequest request);

    /// <summary>The algorithm's options: the request's parameters (<see cref="RequestParameters.Bind"/>) over what the service sets itself.</summary>
    protected abstract TOptions OptionsOf(TRequest request, ParallelismOptions parallel);

    /// <summary>Throws a clear <see cref="ArgumentException"/> when the options do not fit a dataset of <paramref name="points"/> points.</summary>
    protected abstract void Validate(TOptions options, int points);

    /// <summary>
    /// Throws a <see cref="Errors.LimitExceededException"/> when valid options ask for more work than
    /// the limits allow beyond what the fields' rules name (e.g. an annealing's temperatures).
    /// </summary>
    protected virtual void CheckLimits(TOptions options)
    {
    }

    /// <summary>Runs the algorithm on the job's ranks; returns per-point assignments and the result.</summary>
    protected abstract (int[] Assignments, TResult Result) Cluster(TOptions options, DatasetInfo info, VectorInput input, JobContext context);

    /// <summary>Runs the algorithm where it runs for this input: on the job's ranks by default; an algorithm that can run on the grid overrides this.</summary>
    protected virtual Task<(int[] Assignments, TResult Result)> ClusterAsync(TOptions options, DatasetInfo info, VectorInput input, JobContext context) =>
        Task.FromResult(Cluster(options, info, input, context));

    /// <summary>The result's clusters in the shape every clustering job shares.</summary>
    protected abstract ClusteringResult ClusteringOf(TResult result);

    private async Task<JobOutcome> RunAsync(JobContext context, Guid datasetId, TRequest request)
    {
        var (info, input) = await datasets.LoadVectorsAsync(datasetId, context.CancellationToken).ConfigureAwait(false);
        var (assignments, result) = await ClusterAsync(OptionsOf(request, context.Parallelism), info, input, context).ConfigureAwait(false);
        await context.SaveArtifactAsync(Artifacts.Assignments, Artifacts.OctetStream, ArtifactFormats.Int32s(assignments)).ConfigureAwait(false);
        await context.SaveArtifactAsync(Artifacts.Clustering, Artifacts.Protobuf, ClusteringOf(result).ToByteArray()).ConfigureAwait(false);
        return new JobOutcome(result);
    }
}
