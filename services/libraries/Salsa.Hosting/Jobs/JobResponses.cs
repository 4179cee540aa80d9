using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.HttpResults;
using Salsa.Store;

namespace Salsa.Hosting.Jobs;

/// <summary>Responses shared by the services' job-starting endpoints.</summary>
public static class JobResponses
{
    /// <summary>202 Accepted with the job and its URL.</summary>
    public static Accepted<JobView> Accepted(JobRecord job) =>
        TypedResults.Accepted($"/api/jobs/{job.Id}", JobViews.ToView(job, []));
}
