using System.Diagnostics;
using Salsa.Ccr;

namespace Salsa.Grid.Partitions;

/// <summary>A partition's pass, measured: its sums, how long it computed, and the CPU time its ranks took on the silo's threads.</summary>
internal static class PartitionPassWork
{
    public static PartitionSums Run(Func<double[]> pass, string silo)
    {
        var started = Stopwatch.GetTimestamp();
        using var cpu = CpuAccount.Begin();
        var sums = pass();
        var elapsed = Stopwatch.GetElapsedTime(started);
        cpu.Settle(TimeSpan.FromMilliseconds(10));
        return new PartitionSums(sums, elapsed.TotalMicroseconds, silo) { CpuMicroseconds = cpu.CpuTime.TotalMicroseconds };
    }
}
