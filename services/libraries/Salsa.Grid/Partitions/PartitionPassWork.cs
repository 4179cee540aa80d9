using System.Diagnostics;
using Salsa.Ccr;

namespace Salsa.Grid.Partitions;

/// <summary>
/// A silo's turn of partition passes, measured: each partition's sums and how long it computed, and
/// the CPU time the turn's ranks took on the silo's threads — read once for the turn (a clock read at
/// each partition cost about 1.3 µs a partition, ab-grid.md) and shared out by the partitions'
/// compute times.
/// </summary>
internal static class PartitionPassWork
{
    public static PartitionSums Run(Func<double[]> pass, string silo) => RunAll([pass], silo)[0]!;

    /// <summary>The passes in order (a null one is a partition not held here, answered null).</summary>
    public static PartitionSums?[] RunAll(IReadOnlyList<Func<double[]>?> passes, string silo)
    {
        ArgumentNullException.ThrowIfNull(passes);
        var answers = new PartitionSums?[passes.Count];
        using var cpu = CpuAccount.Begin();
        var computed = 0.0;
        for (var i = 0; i < passes.Count; i++)
        {
            if (passes[i] is { } pass)
            {
                var started = Stopwatch.GetTimestamp();
                var sums = pass();
                answers[i] = new PartitionSums(sums, Stopwatch.GetElapsedTime(started).TotalMicroseconds, silo);
                computed += answers[i]!.ComputeMicroseconds;
            }
        }

        cpu.Settle(TimeSpan.FromMilliseconds(10));
        var turn = cpu.CpuTime.TotalMicroseconds;
        for (var i = 0; i < answers.Length; i++)
        {
            if (answers[i] is { } answer)
            {
                answers[i] = answer with { CpuMicroseconds = computed > 0 ? turn * answer.ComputeMicroseconds / computed : 0 };
            }
        }

        return answers;
    }
}
