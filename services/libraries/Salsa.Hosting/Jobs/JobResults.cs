using Google.Protobuf;
using Salsa.Contracts.Common;
using Salsa.Contracts.Mds;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Security;
using Salsa.Store;
using JobState = Salsa.Store.JobState;

namespace Salsa.Hosting.Jobs;

/// <summary>
/// The one declared artifact contract between services: how one service reads the results of
/// another's job, and the only way it may. Only succeeded jobs of the calling tenant, and only
/// their published files in their declared shapes (<see cref="Artifacts"/>): a clustering job's
/// <c>clustering</c> (<see cref="ClusteringResult"/>) and <c>assignments</c> (int32 per point), an
/// embedding job's <c>embedding</c> (<see cref="EmbeddingResult"/>). Says clearly when a job is
/// unknown, unfinished or of a kind that leaves no such result. A service's own jobs are read
/// through its <see cref="JobManager"/>; no service reads the store's jobs or files otherwise
/// (a source test holds it).
/// </summary>
public sealed class JobResults(IDataStore store)
{
    /// <summary>A succeeded job; <paramref name="purpose"/> completes "… can be drawn" in the errors.</summary>
    public async Task<JobRecord> GetSucceededAsync(Guid id, string purpose, CancellationToken cancellationToken)
    {
        var job = await store.GetJobAsync(id, cancellationToken).ConfigureAwait(false) is { } found && found.Tenant == CallerTenant.Current
            ? found
            : throw new NotFoundException($"No job {id} in the store.");
        return job.State switch
        {
            JobState.Succeeded => job,
            JobState.Queued or JobState.Running => throw new ConflictException($"Job {id} is {JobViews.StateName(job.State)}; {purpose} can be drawn once it has succeeded."),
            _ => throw new ConflictException($"Job {id} ended {JobViews.StateName(job.State)}, so there is nothing to draw: {job.Error}"),
        };
    }

    /// <summary>A succeeded clustering job (annealing, k-means, Butina) and its clustering.</summary>
    public async Task<(JobRecord Job, ClusteringResult Clustering)> GetClusteringAsync(Guid id, string purpose, CancellationToken cancellationToken)
    {
        var job = await GetSucceededAsync(id, purpose, cancellationToken).ConfigureAwait(false);
        var bytes = await ReadAsync(job, Artifacts.Clustering, $"{purpose} needs a clustering job (annealing, k-means or Butina)", cancellationToken).ConfigureAwait(false);
        return (job, Parse(job, Artifacts.Clustering, ClusteringResult.Parser, bytes));
    }

    /// <summary>A succeeded embedding job (MDS) and its embedding.</summary>
    public async Task<(JobRecord Job, EmbeddingResult Embedding)> GetEmbeddingAsync(Guid id, string purpose, CancellationToken cancellationToken)
    {
        var job = await GetSucceededAsync(id, purpose, cancellationToken).ConfigureAwait(false);
        var bytes = await ReadAsync(job, Artifacts.Embedding, $"{purpose} needs an MDS job", cancellationToken).ConfigureAwait(false);
        return (job, Parse(job, Artifacts.Embedding, EmbeddingResult.Parser, bytes));
    }

    /// <summary>The cluster of each point of a clustering job, checked against the clustering's own counts.</summary>
    public async Task<int[]> GetAssignmentsAsync(JobRecord job, ClusteringResult clustering, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(job);
        ArgumentNullException.ThrowIfNull(clustering);
        var assignments = ArtifactFormats.ReadInt32s(await ReadAsync(job, Artifacts.Assignments, "its clustering is incomplete", cancellationToken).ConfigureAwait(false));
        if (assignments.Length != clustering.Points || assignments.Any(a => a < 0 || a >= clustering.Clusters))
        {
            throw new InvalidDataException($"Job {job.Id} ({job.Service}) has assignments that do not fit its clustering of {clustering.Points} points into {clustering.Clusters} clusters.");
        }

        return assignments;
    }

    private async Task<byte[]> ReadAsync(JobRecord job, string name, string refusal, CancellationToken cancellationToken) =>
        (await store.GetArtifactAsync(job.Id, name, cancellationToken).ConfigureAwait(false))?.Data
            ?? throw new ArgumentException($"Job {job.Id} is a {job.Kind} job of the {job.Service} service and left no '{name}' file; {refusal}.");

    private static T Parse<T>(JobRecord job, string name, MessageParser<T> parser, byte[] bytes)
        where T : IMessage<T>
    {
        try
        {
            return parser.ParseFrom(bytes);
        }
        catch (InvalidProtocolBufferException exception)
        {
            throw new InvalidDataException($"Job {job.Id} ({job.Service}) has a damaged '{name}' file: {exception.Message}", exception);
        }
    }
}
