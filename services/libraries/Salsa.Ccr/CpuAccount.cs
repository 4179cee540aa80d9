using Salsa.Ccr.Internal;

namespace Salsa.Ccr;

// Design: the CPU time and managed allocations of one flow of work (a job), wherever it runs in the
// process. The account is an AsyncLocal value, so it follows the work through awaits, thread-pool
// items, SPMD ranks (which run in their caller's ExecutionContext) and whatever else flows the
// ExecutionContext — and it is never charged for the work of another flow on the same threads. The
// runtime tells the AsyncLocal when a thread enters or leaves a context that holds the account; the
// thread then reads its own CPU clock and allocation counter, keeps the readings in thread-static
// fields (only it writes them), and on leaving adds the differences to the account with
// Interlocked.Add: totals are only ever added to, so nothing locks and nothing waits. An account begun
// inside another (a silo's pass inside a job) is charged alone while it is current, and the outer one
// resumes when it ends. A blocked thread uses no CPU; a spinning one does, and is charged: that is
// what the work cost.
/// <summary>The CPU time and managed allocations of a flow of work, on every thread it runs on.</summary>
public sealed class CpuAccount : IDisposable
{
    private static readonly AsyncLocal<CpuAccount?> s_current = new(OnChanged);

    [ThreadStatic]
    private static long t_cpuStart;

    [ThreadStatic]
    private static long t_allocatedStart;

    private readonly CpuAccount? _outer;
    private long _cpuNanoseconds;
    private long _allocatedBytes;
    private int _threads;
    private int _ended;

    private CpuAccount(CpuAccount? outer) => _outer = outer;

    /// <summary>Whether this platform has a per-thread CPU clock (Linux, macOS, Windows); without one only allocations are counted.</summary>
    public static bool IsSupported => ThreadCpuClock.IsSupported;

    /// <summary>The account the calling flow is charged to, if any.</summary>
    public static CpuAccount? Current => s_current.Value;

    /// <summary>
    /// Starts charging the calling flow (and every flow it starts from now on) to a new account,
    /// until it is disposed on this flow.
    /// </summary>
    public static CpuAccount Begin()
    {
        var account = new CpuAccount(s_current.Value);
        s_current.Value = account;
        return account;
    }

    /// <summary>CPU time charged so far, the calling thread's running share included.</summary>
    public TimeSpan CpuTime
    {
        get
        {
            var charged = Volatile.Read(ref _cpuNanoseconds);
            if (s_current.Value == this)
            {
                charged += ThreadCpuClock.Now() - t_cpuStart;
            }

            return TimeSpan.FromTicks(charged / 100);
        }
    }

    /// <summary>Managed bytes allocated so far, the calling thread's running share included.</summary>
    public long AllocatedBytes
    {
        get
        {
            var charged = Volatile.Read(ref _allocatedBytes);
            if (s_current.Value == this)
            {
                charged += GC.GetAllocatedBytesForCurrentThread() - t_allocatedStart;
            }

            return charged;
        }
    }

    /// <summary>
    /// Waits, at most <paramref name="timeout"/>, until no other thread is still inside the account:
    /// a thread that has just handed the flow on (an await's continuation already running elsewhere)
    /// adds its share as it leaves, a few microseconds later. True when the totals are final.
    /// </summary>
    public bool Settle(TimeSpan timeout)
    {
        var here = s_current.Value == this ? 1 : 0;
        var spinner = default(SpinWait);
        var until = Environment.TickCount64 + (long)timeout.TotalMilliseconds;
        while (Volatile.Read(ref _threads) > here)
        {
            if (Environment.TickCount64 > until)
            {
                return false;
            }

            spinner.SpinOnce();
        }

        return true;
    }

    /// <summary>Stops charging the flow that began it (the flows it started stop as they leave it); the totals stay readable.</summary>
    public void Dispose()
    {
        if (Interlocked.Exchange(ref _ended, 1) == 0 && s_current.Value == this)
        {
            s_current.Value = _outer;
        }
    }

    private static void OnChanged(AsyncLocalValueChangedArgs<CpuAccount?> change)
    {
        var cpu = ThreadCpuClock.Now();
        var allocated = GC.GetAllocatedBytesForCurrentThread();
        if (change.PreviousValue is { } left)
        {
            Interlocked.Add(ref left._cpuNanoseconds, cpu - t_cpuStart);
            Interlocked.Add(ref left._allocatedBytes, allocated - t_allocatedStart);
            Interlocked.Decrement(ref left._threads);
        }

        if (change.CurrentValue is { } entered)
        {
            Interlocked.Increment(ref entered._threads);
            t_cpuStart = cpu;
            t_allocatedStart = allocated;
        }
    }
}
