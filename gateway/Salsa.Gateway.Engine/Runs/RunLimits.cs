using System.ComponentModel.DataAnnotations;

namespace Salsa.Gateway.Runs;

/// <summary>The gateway's run limits, from <c>Gateway:Runs</c>.</summary>
public sealed class RunLimits
{
    public const string Section = "Gateway:Runs";

    /// <summary>Runs executing at once (their steps mostly wait on services).</summary>
    [Range(1, int.MaxValue)]
    public int Concurrent { get; set; } = 4;

    /// <summary>
    /// Of <see cref="Concurrent"/>, how many one tenant may hold at once (null: all but one, so one is
    /// always free for another tenant's run; at least one).
    /// </summary>
    [Range(1, int.MaxValue)]
    public int? MaxRunningPerTenant { get; set; }

    /// <summary>Runs accepted but waiting, all tenants together; beyond this a start is refused with 429 / RESOURCE_EXHAUSTED.</summary>
    [Range(1, int.MaxValue)]
    public int QueueDepth { get; set; } = 64;

    /// <summary>
    /// Runs one tenant may have waiting; beyond this its start is refused (429) while other tenants'
    /// are still accepted. Waiting runs start a tenant at a time, in turn.
    /// </summary>
    [Range(1, int.MaxValue)]
    public int MaxQueuedPerTenant { get; set; } = 16;

    [Range(typeof(TimeSpan), "00:00:00.001", "1.00:00:00")]
    public TimeSpan RetryAfter { get; set; } = TimeSpan.FromSeconds(5);

    /// <summary>
    /// How long a change of a running run's steps waits before it is written to the store, so that the
    /// changes meanwhile cost one write (and a short run none but its insert and its end). A run's end
    /// and a service job's id are written at once, whatever this is; a gateway that dies loses at most
    /// this much of its runs' progress, which a resumed run does again. Zero writes each change at once.
    /// </summary>
    [Range(typeof(TimeSpan), "00:00:00", "00:01:00")]
    public TimeSpan WriteBehind { get; set; } = TimeSpan.FromMilliseconds(100);

    /// <summary>Resume runs that were in flight when the gateway stopped (else they are marked interrupted).</summary>
    public bool ResumeInterrupted { get; set; } = true;
}
