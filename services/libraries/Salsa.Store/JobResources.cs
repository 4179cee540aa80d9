namespace Salsa.Store;

/// <summary>
/// What a job's work used in its service's process. CPU time and allocations are the job's own,
/// counted on every thread its work ran on (and, for a job computed on the grid, its passes on the
/// silos); peak memory is the process's, shared with the jobs that ran beside it
/// (<see cref="ProcessJobs"/>).
/// </summary>
public sealed record JobResources
{
    /// <summary>CPU time of the job's work, in milliseconds; null where the platform has no per-thread CPU clock.</summary>
    public double? CpuMilliseconds { get; init; }

    /// <summary>Of <see cref="CpuMilliseconds"/>, what its passes used on the grid's silos; null for a job not computed on the grid.</summary>
    public double? GridCpuMilliseconds { get; init; }

    /// <summary>Managed memory the job's work allocated in the process, in bytes.</summary>
    public long AllocatedBytes { get; init; }

    /// <summary>The process's peak resident memory while the job ran, in bytes.</summary>
    public long PeakMemoryBytes { get; init; }

    /// <summary>The cores (SPMD ranks) the job computed on in the process; null when it took none.</summary>
    public int? Cores { get; init; }

    /// <summary>The most jobs the process ran at once while this one ran, itself included.</summary>
    public int ProcessJobs { get; init; }
}
