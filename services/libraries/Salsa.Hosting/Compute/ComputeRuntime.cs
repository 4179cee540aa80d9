using Microsoft.Extensions.Options;
using Salsa.Ccr;

namespace Salsa.Hosting.Compute;

/// <summary>
/// The service's Salsa.Ccr dispatchers: a jobs dispatcher (one thread per concurrent job) that runs
/// the jobs the tenant scheduler of <see cref="Jobs.JobManager"/> gives a slot — the backlog, bounded
/// per tenant and in all, waits there — and a compute dispatcher whose threads carry the SPMD ranks of running jobs. Request threads never
/// compute.
/// </summary>
public sealed class ComputeRuntime : IDisposable
{
    public ComputeRuntime(IOptions<ServiceLimits> limits)
    {
        var options = limits.Value;
        Limits = options;
        Jobs = new Dispatcher(new DispatcherOptions { ThreadCount = options.JobSlots, Name = "Salsa jobs", IdleSpin = TimeSpan.Zero });
        // Jobs reach it only once the tenant scheduler gave them a slot (a spare one included): it never holds more than the slots.
        JobQueue = Jobs.CreateQueue("jobs", new DispatcherQueueOptions { Policy = QueuePolicy.DiscardNewest, MaxDepth = options.JobSlots });
        Compute = new Dispatcher(new DispatcherOptions
        {
            ThreadCount = Math.Max(options.Ranks, 1) * options.JobSlots,
            Name = "Salsa compute",
            IdleSpin = TimeSpan.FromMicroseconds(20),
            // Not pinned: the process may host other services (the embedded default), whose dispatchers
            // would pin their threads to the same first cores; jobs share the cores through CoreBudget.
            PinThreads = false,
        });
    }

    public ServiceLimits Limits { get; }

    public Dispatcher Jobs { get; }

    /// <summary>Jobs that hold a slot, on their way to a jobs thread; bounded by the slots.</summary>
    public DispatcherQueue JobQueue { get; }

    /// <summary>Threads for SPMD ranks: pass it in the algorithms' parallelism options.</summary>
    public Dispatcher Compute { get; }

    public int Ranks => Math.Max(Limits.Ranks, 1);

    public void Dispose()
    {
        Jobs.Dispose();
        Compute.Dispose();
    }
}
