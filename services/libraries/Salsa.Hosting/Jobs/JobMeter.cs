using System.Diagnostics;
using Salsa.Ccr;
using Salsa.Hosting.Compute;
using Salsa.Store;

namespace Salsa.Hosting.Jobs;

// Design: what one job's work uses, measured while it computes. Its CPU time and allocations are a
// CpuAccount begun on the job's flow: every thread the work runs on (awaits, SPMD ranks, the thread
// pool) is charged, and no other job's. Memory cannot be told apart inside one process, so the
// process's peak resident memory is kept: sampled every 100 ms by a timer (which runs outside the
// job's flow, so it charges nothing to it), and the kernel's high-water mark read at both ends
// catches a peak between samples. The timer also keeps the most jobs the process ran at once, so a
// reader knows whose memory the peak is. Written by the job's thread (begin, end) and the timer
// (samples) with Interlocked maxima; read once, at the end.
internal sealed class JobMeter : IDisposable
{
    private static readonly TimeSpan s_sampleEvery = TimeSpan.FromMilliseconds(100);

    private readonly CpuAccount _account;
    private readonly Timer _sampler;
    private readonly long _highWaterAtStart = HighWaterMark();
    private long _peakMemory;
    private int _processJobs;
    private long _gridNanoseconds;
    private int _onGrid;

    private JobMeter()
    {
        Sample();
        using (ExecutionContext.SuppressFlow())
        {
            _sampler = new Timer(static s => ((JobMeter)s!).Sample(), this, s_sampleEvery, s_sampleEvery);
        }

        _account = CpuAccount.Begin();
    }

    /// <summary>Starts measuring the calling flow (the job's work must run on it, or on flows it starts).</summary>
    public static JobMeter Begin() => new();

    /// <summary>CPU time the job's passes used on the grid's silos, outside this process's flows.</summary>
    public void AddGridCpu(TimeSpan cpu)
    {
        Interlocked.Add(ref _gridNanoseconds, (long)cpu.TotalNanoseconds);
        Volatile.Write(ref _onGrid, 1);
    }

    /// <summary>Stops measuring (on the flow that began it) and says what the work used.</summary>
    public JobResources End(int? cores)
    {
        _account.Dispose();
        _sampler.Dispose();
        _account.Settle(TimeSpan.FromMilliseconds(100));
        Sample();
        var highWater = HighWaterMark();
        if (highWater > _highWaterAtStart)
        {
            InterlockedMax(ref _peakMemory, highWater); // the process peaked while the job ran
        }

        var grid = Interlocked.Read(ref _gridNanoseconds) / 1e6;
        return new JobResources
        {
            CpuMilliseconds = CpuAccount.IsSupported ? _account.CpuTime.TotalMilliseconds + grid : null,
            GridCpuMilliseconds = CpuAccount.IsSupported && Volatile.Read(ref _onGrid) == 1 ? grid : null,
            AllocatedBytes = _account.AllocatedBytes,
            PeakMemoryBytes = Interlocked.Read(ref _peakMemory),
            Cores = cores,
            ProcessJobs = Math.Max(Volatile.Read(ref _processJobs), 1),
        };
    }

    public void Dispose()
    {
        _account.Dispose();
        _sampler.Dispose();
    }

    private void Sample()
    {
        InterlockedMax(ref _peakMemory, Environment.WorkingSet);
        var jobs = CoreBudget.Process.Jobs;
        int seen;
        while (jobs > (seen = Volatile.Read(ref _processJobs)) && Interlocked.CompareExchange(ref _processJobs, jobs, seen) != seen)
        {
        }
    }

    // The process's peak resident memory since it started (VmHWM on Linux, the peak working set on Windows).
    private static long HighWaterMark()
    {
        using var process = Process.GetCurrentProcess();
        return process.PeakWorkingSet64;
    }

    private static void InterlockedMax(ref long target, long value)
    {
        long seen;
        while (value > (seen = Interlocked.Read(ref target)) && Interlocked.CompareExchange(ref target, value, seen) != seen)
        {
        }
    }
}
