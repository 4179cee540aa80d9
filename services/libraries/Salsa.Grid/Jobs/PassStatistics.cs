namespace Salsa.Grid.Jobs;

/// <summary>Passes of a job and where their time went.</summary>
[GenerateSerializer, Immutable]
public sealed record PassStatistics(
    [property: Id(0)] long Passes,
    [property: Id(1)] long Retries,
    [property: Id(2)] double ComputeMicroseconds,
    [property: Id(3)] double MessagingMicroseconds)
{
    public static PassStatistics None { get; } = new(0, 0, 0, 0);

    /// <summary>
    /// The longest a single pass waited, partitions asked again included: after a lost silo, the
    /// interrupted pass's wait is the job's time to recover (failure detection, the directory's
    /// lease, the partitions reactivated on survivors and their rows reloaded).
    /// </summary>
    [Id(4)] public double LongestPassMicroseconds { get; init; }

    /// <summary>The CPU time the passes took on every silo, all partitions' together.</summary>
    [Id(5)] public double CpuMicroseconds { get; init; }

    public PassStatistics Add(PassStatistics other)
    {
        ArgumentNullException.ThrowIfNull(other);
        return new(Passes + other.Passes, Retries + other.Retries, ComputeMicroseconds + other.ComputeMicroseconds, MessagingMicroseconds + other.MessagingMicroseconds)
        {
            LongestPassMicroseconds = Math.Max(LongestPassMicroseconds, other.LongestPassMicroseconds),
            CpuMicroseconds = CpuMicroseconds + other.CpuMicroseconds,
        };
    }
}
