namespace Salsa.Ccr;

/// <summary>How the ranks of an SPMD group are carried.</summary>
public enum SpmdExecution
{
    /// <summary>
    /// Each rank owns a dispatcher thread for the whole run (the seeds' long-running handlers). Waits
    /// spin, then yield, then block, so any number of ranks on any number of cores make progress.
    /// Both the blocking and the async collectives work.
    /// </summary>
    Threads,

    /// <summary>
    /// Ranks are async handlers multiplexed on a dispatcher's threads; a wait suspends the rank (its
    /// continuation is queued when the message arrives) instead of holding a thread. Oversubscribed
    /// groups (more ranks than cores) switch ranks without OS context switches. Only the async
    /// collectives may be used.
    /// </summary>
    Tasks,
}

/// <summary>Options of an SPMD run.</summary>
public sealed record SpmdOptions
{
    /// <summary>
    /// Dispatcher to run the ranks on. When null, one is created for the run: with one thread per
    /// rank for <see cref="SpmdExecution.Threads"/> ("match"), one per core for <see cref="SpmdExecution.Tasks"/>.
    /// </summary>
    public Dispatcher? Dispatcher { get; init; }

    /// <summary>Cancels the run: every rank's next wait throws <see cref="OperationCanceledException"/>.</summary>
    public CancellationToken CancellationToken { get; init; }

    /// <summary>
    /// How long a waiting rank polls before it yields and then blocks, when there are no more ranks
    /// than cores. Oversubscribed groups do not spin: the rank they wait for needs the core.
    /// </summary>
    public TimeSpan SpinDuration { get; init; } = TimeSpan.FromMicroseconds(50);

    /// <summary>
    /// Fail the run with a report when every rank waits on the others and none can go on (a rank
    /// returned early, a receive with no send), instead of hanging. The runtime sees what the ranks'
    /// own flows do, not threads a rank starts itself: a run whose rank flows all wait for a message
    /// such a thread has yet to send would be taken for deadlocked, so turn this off for it. Once any
    /// rank has sent from another thread, the run turns it off by itself. On by default.
    /// </summary>
    public bool DetectDeadlocks { get; init; } = true;
}

/// <summary>Thrown in the surviving ranks of a group when another rank failed; the run reports the original failure.</summary>
public sealed class SpmdAbortedException : Exception
{
    public SpmdAbortedException()
        : base("Another rank of the SPMD group failed.")
    {
    }

    public SpmdAbortedException(string message)
        : base(message)
    {
    }

    public SpmdAbortedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
