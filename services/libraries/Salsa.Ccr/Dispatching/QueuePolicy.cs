namespace Salsa.Ccr;

/// <summary>
/// What a <see cref="DispatcherQueue"/> does when it holds <see cref="DispatcherQueueOptions.MaxDepth"/>
/// tasks — CCR's task execution policies, reduced to the three that matter.
/// </summary>
public enum QueuePolicy
{
    /// <summary>No bound.</summary>
    Unbounded,

    /// <summary>The new task is refused: <see cref="DispatcherQueue.TryEnqueue"/> returns false.</summary>
    DiscardNewest,

    /// <summary>The oldest queued task is dropped to make room for the new one.</summary>
    DiscardOldest,

    /// <summary>
    /// The poster waits for room (<see cref="DispatcherQueue.Enqueue"/> blocks,
    /// <see cref="DispatcherQueue.EnqueueAsync"/> awaits). Posts from the dispatcher's own threads are
    /// never held back: they are the consumers, and holding them would deadlock the queue.
    /// </summary>
    Throttle,
}

/// <summary>Options of a <see cref="DispatcherQueue"/>.</summary>
public sealed record DispatcherQueueOptions
{
    public QueuePolicy Policy { get; init; } = QueuePolicy.Unbounded;

    /// <summary>Bound for the bounded policies.</summary>
    public int MaxDepth { get; init; } = int.MaxValue;

    /// <summary>Tasks a dispatcher thread runs from this queue before looking at the next one.</summary>
    public int FairnessQuantum { get; init; } = 32;
}

/// <summary>Options of a <see cref="Dispatcher"/>.</summary>
public sealed record DispatcherOptions
{
    /// <summary>
    /// Dedicated OS threads. The seeds compare "match" (one per parallel computation) with
    /// "default" (one per core, this default).
    /// </summary>
    public int ThreadCount { get; init; } = Environment.ProcessorCount;

    public string Name { get; init; } = "Salsa.Ccr";

    /// <summary>
    /// How long an idle thread polls its queues before it sleeps. Short spins keep hand-offs between
    /// busy threads in the sub-microsecond range; sleeping costs a futex wake on the next post.
    /// </summary>
    public TimeSpan IdleSpin { get; init; } = TimeSpan.FromMicroseconds(50);

    public ThreadPriority Priority { get; init; } = ThreadPriority.Normal;

    /// <summary>
    /// Binds thread i to the process's allowed core number (<see cref="FirstCore"/> + i) mod their
    /// count (Linux; ignored elsewhere). For SPMD compute dispatchers: ranks that synchronise every few
    /// milliseconds must not share a core, and the OS scheduler, placing a woken thread beside its
    /// waker, sometimes stacks them.
    /// </summary>
    public bool PinThreads { get; init; }

    /// <summary>Which allowed core thread 0 is bound to when <see cref="PinThreads"/> is set.</summary>
    public int FirstCore { get; init; }

    /// <summary>Options of the dispatcher's default queue.</summary>
    public DispatcherQueueOptions DefaultQueue { get; init; } = new();
}
