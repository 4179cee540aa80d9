using System.Text.Json;
using System.Text.Json.Nodes;
using Google.Protobuf.WellKnownTypes;
using Salsa.Store;
using Proto = Salsa.Contracts.Common;

namespace Salsa.Hosting.Jobs;

/// <summary>A job as REST returns it.</summary>
public sealed record JobView(
    Guid JobId,
    string Service,
    string Kind,
    string State,
    DateTimeOffset Created,
    DateTimeOffset? Started,
    DateTimeOffset? Finished,
    double QueueMs,
    double ComputeMs,
    Guid? DatasetId,
    string? Error,
    JobProgressUpdate? Progress,
    JsonNode? Parameters,
    JsonNode? Result,
    IReadOnlyList<ArtifactView> Artifacts,
    JobResourcesView? Resources = null);

/// <summary>
/// What a job's work used in its service's process, once it ended: CPU time and managed allocations
/// of its own work on every thread (with its passes on the grid's silos, also given alone), the cores it computed on,
/// and the process's peak resident memory while it ran — shared with the jobs beside it (processJobs).
/// </summary>
public sealed record JobResourcesView(double? CpuMs, long AllocatedBytes, long PeakMemoryBytes, int? Cores, int ProcessJobs, double? GridCpuMs = null)
{
    public static JobResourcesView? From(JobResources? resources) => resources is null ? null
        : new(resources.CpuMilliseconds, resources.AllocatedBytes, resources.PeakMemoryBytes, resources.Cores, resources.ProcessJobs, resources.GridCpuMilliseconds);

    public static JobResourcesView? FromProto(Proto.JobResources? resources) => resources is null ? null
        : new(resources.HasCpuMs ? resources.CpuMs : null, resources.AllocatedBytes, resources.PeakMemoryBytes, resources.HasCores ? resources.Cores : null, resources.ProcessJobs,
            resources.HasGridCpuMs ? resources.GridCpuMs : null);

    public Proto.JobResources ToProto()
    {
        var proto = new Proto.JobResources { AllocatedBytes = AllocatedBytes, PeakMemoryBytes = PeakMemoryBytes, ProcessJobs = ProcessJobs };
        if (CpuMs is { } cpu)
        {
            proto.CpuMs = cpu;
        }

        if (Cores is { } cores)
        {
            proto.Cores = cores;
        }

        if (GridCpuMs is { } grid)
        {
            proto.GridCpuMs = grid;
        }

        return proto;
    }
}

/// <summary>A job's file: where to download it, and the SHA-256 of its bytes (null for one stored before digests were kept).</summary>
public sealed record ArtifactView(string Name, string ContentType, long Size, string Url, string? Sha256 = null);

/// <summary>Conversions of job records to what the two faces return.</summary>
public static class JobViews
{
    public static string StateName(JobState state) => state.ToString().ToLowerInvariant();

    public static JobView ToView(JobRecord job, IReadOnlyList<ArtifactEntry> artifacts, string pathBase = "") => new(
        job.Id,
        job.Service,
        job.Kind,
        StateName(job.State),
        job.Created,
        job.Started,
        job.Finished,
        job.QueueMilliseconds,
        job.ComputeMilliseconds,
        job.DatasetId,
        job.Error,
        job.ProgressJson is null ? null : JsonSerializer.Deserialize<JobProgressUpdate>(job.ProgressJson, JobJson.Options),
        JsonNode.Parse(job.ParametersJson),
        job.ResultJson is null ? null : JsonNode.Parse(job.ResultJson),
        [.. artifacts.Select(a => new ArtifactView(a.Name, a.ContentType, a.Size, $"{pathBase}/api/jobs/{job.Id}/artifacts/{a.Name}", a.Sha256))],
        JobResourcesView.From(job.Resources));

    public static Proto.JobInfo ToProto(JobRecord job, IReadOnlyList<ArtifactEntry>? artifacts = null)
    {
        var info = new Proto.JobInfo
        {
            JobId = job.Id.ToString(),
            Service = job.Service,
            Kind = job.Kind,
            State = (Proto.JobState)(int)job.State,
            Created = Timestamp.FromDateTimeOffset(job.Created),
            QueueMs = job.QueueMilliseconds,
            ComputeMs = job.ComputeMilliseconds,
            DatasetId = job.DatasetId?.ToString() ?? "",
            Error = job.Error ?? "",
            ParametersJson = job.ParametersJson,
            ResultJson = job.ResultJson ?? "",
        };
        if (job.Started is { } started)
        {
            info.Started = Timestamp.FromDateTimeOffset(started);
        }

        if (job.Finished is { } finished)
        {
            info.Finished = Timestamp.FromDateTimeOffset(finished);
        }

        if (job.ProgressJson is not null && JsonSerializer.Deserialize<JobProgressUpdate>(job.ProgressJson, JobJson.Options) is { } progress)
        {
            info.Progress = ToProto(progress);
        }

        if (JobResourcesView.From(job.Resources) is { } used)
        {
            info.Resources = used.ToProto();
        }

        foreach (var artifact in artifacts ?? [])
        {
            info.Artifacts.Add(new Proto.ArtifactInfo { Name = artifact.Name, ContentType = artifact.ContentType, Size = artifact.Size, Sha256 = artifact.Sha256 ?? "" });
        }

        return info;
    }

    public static Proto.JobProgress ToProto(JobProgressUpdate update)
    {
        var progress = new Proto.JobProgress
        {
            Phase = update.Phase,
            Iteration = update.Iteration,
            Clusters = update.Clusters,
            Objective = update.Objective,
            ElapsedMs = update.ElapsedMilliseconds,
        };
        if (update.Temperature is { } t)
        {
            progress.Temperature = t;
        }

        return progress;
    }

    /// <summary>Parses a job id from a request; a malformed one is a bad request, not a missing job.</summary>
    public static Guid ParseId(string? id, string what = "job id") =>
        Guid.TryParse(id, out var guid) ? guid : throw new ArgumentException($"'{id}' is not a valid {what} (a GUID).");
}
