using System.Text.Json;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Jobs;
using Salsa.Store;

namespace Salsa.Render;

/// <summary>The parts of a clustering job's result a map needs (annealing and k-means results both have them).</summary>
internal sealed record StoredClustering(int Clusters, int Dimension, double[] Centres);

/// <summary>The parts of an MDS job's result a scatter plot needs.</summary>
internal sealed record StoredEmbedding(int Items, int Dimensions, double NormalisedStress);

/// <summary>
/// Other services' jobs, read from the store every service shares: the render service draws what
/// the clustering and MDS services computed, by job id, and says clearly when a job is unknown, of
/// the wrong kind or not finished.
/// </summary>
public sealed class StoredJobs(IDataStore store)
{
    /// <summary>A succeeded job of one of <paramref name="services"/>; <paramref name="purpose"/> completes "… needs …" in the errors.</summary>
    public async Task<JobRecord> GetSucceededAsync(Guid id, IReadOnlyCollection<string> services, string purpose, CancellationToken cancellationToken)
    {
        var job = await store.GetJobAsync(id, cancellationToken).ConfigureAwait(false)
            ?? throw new NotFoundException($"No job {id} in the store.");
        if (!services.Contains(job.Service))
        {
            throw new ArgumentException($"Job {id} is a {job.Kind} job of the {job.Service} service; {purpose} needs a job of the {string.Join(" or ", services)} service.");
        }

        return job.State switch
        {
            JobState.Succeeded => job,
            JobState.Queued or JobState.Running => throw new ConflictException($"Job {id} is {JobViews.StateName(job.State)}; {purpose} can be drawn once it has succeeded."),
            _ => throw new ConflictException($"Job {id} ended {JobViews.StateName(job.State)}, so there is nothing to draw: {job.Error}"),
        };
    }

    public async Task<byte[]> GetArtifactAsync(JobRecord job, string name, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(job);
        var artifact = await store.GetArtifactAsync(job.Id, name, cancellationToken).ConfigureAwait(false)
            ?? throw new InvalidDataException($"Job {job.Id} ({job.Service}) has no '{name}' artifact.");
        return artifact.Data;
    }

    internal static T Result<T>(JobRecord job) =>
        (job.ResultJson is { } json ? JsonSerializer.Deserialize<T>(json, JobJson.Options) : default)
        ?? throw new InvalidDataException($"Job {job.Id} ({job.Service}) has no result.");
}
