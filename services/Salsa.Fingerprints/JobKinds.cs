using Salsa.Hosting.Errors;
using Salsa.Hosting.Jobs;
using Salsa.Store;

namespace Salsa.Fingerprints;

/// <summary>This service runs jobs of several kinds: a typed result is only read from a job of its own kind.</summary>
public static class JobKinds
{
    /// <summary>The job, when it is this service's and of <paramref name="kind"/>; otherwise not found.</summary>
    public static async Task<JobRecord> RequireKindAsync(this JobManager jobs, Guid id, string kind, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(jobs);
        var job = await jobs.GetRequiredAsync(id, cancellationToken);
        return job.Kind == kind ? job : throw new NotFoundException($"No {kind} job {id} on the {jobs.Service} service (that job's kind is {job.Kind}).");
    }
}
