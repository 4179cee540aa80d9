using Salsa.Store;

namespace Salsa.Hosting.Jobs;

/// <summary>One progress event of a running job.</summary>
public sealed record JobProgressUpdate(
    string Phase,
    int Iteration,
    double? Temperature,
    int Clusters,
    double Objective,
    double ElapsedMilliseconds);

/// <summary>What a watcher receives: progress while the job runs, the job itself when it changes state.</summary>
public abstract record JobEvent
{
    public sealed record Progress(JobProgressUpdate Update) : JobEvent;

    public sealed record Status(JobRecord Job) : JobEvent;
}

/// <summary>What a job's work returns: the result summary (stored as JSON). Artifacts are saved through the context.</summary>
public sealed record JobOutcome(object Result);

public delegate Task<JobOutcome> JobWork(JobContext context);
