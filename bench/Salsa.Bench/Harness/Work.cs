using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Salsa.Bench.Harness;

/// <summary>
/// The seeds' "basic computation unit": a short dependent floating-point series that neither the
/// JIT nor the CPU can shorten, calibrated on this machine to about one microsecond.
/// </summary>
public static class Work
{
    private const int IterationsPerUnit = 150;

    private static readonly Lazy<double> s_microsecondsPerUnit = new(Calibrate);

    /// <summary>Measured cost of one unit on this machine.</summary>
    public static double MicrosecondsPerUnit => s_microsecondsPerUnit.Value;

    /// <summary>Units that take about <paramref name="microseconds"/>.</summary>
    public static int UnitsFor(double microseconds) => Math.Max(1, (int)Math.Round(microseconds / MicrosecondsPerUnit));

    // Fully optimised from the first call: tiering would make the first thousand short stages slower
    // than one long one and bias every overhead measured against it.
    [MethodImpl(MethodImplOptions.NoInlining | MethodImplOptions.AggressiveOptimization)]
    public static double Run(int units, double seed = 1.0)
    {
        var x = seed;
        for (var u = 0; u < units; u++)
        {
            for (var k = 1; k <= IterationsPerUnit; k++)
            {
                x += 1.0 / (k * (double)k + x * 1e-9);
            }
        }

        return x;
    }

    private static double Calibrate()
    {
        const int Units = 20_000;
        Run(Units);
        var best = double.MaxValue;
        for (var i = 0; i < 5; i++)
        {
            var start = Stopwatch.GetTimestamp();
            Run(Units);
            best = Math.Min(best, Stopwatch.GetElapsedTime(start).TotalMicroseconds / Units);
        }

        return best;
    }
}
