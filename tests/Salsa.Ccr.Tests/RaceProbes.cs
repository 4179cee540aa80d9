using Salsa.Ccr.Internal;

namespace Salsa.Ccr.Tests;

/// <summary>
/// Hooks the runtime's named points (<see cref="RaceProbe"/>): widens a race window (a thread reaching
/// it spins a random while or gives up its core, so another thread gets in between), or tells a test
/// the runtime got there. The probe is process-wide, so tests that install one run alone
/// (<see cref="Collection"/>).
/// </summary>
internal static class RaceProbes
{
    public const string Collection = "race probes";

    public static IDisposable Widen(params string[] points)
    {
        RaceProbe.Probe = point =>
        {
            if (Array.IndexOf(points, point) < 0)
            {
                return;
            }

            var random = Random.Shared.Next(16);
            if (random == 0)
            {
                Thread.Yield();
            }
            else
            {
                Thread.SpinWait(random * 200);
            }
        };
        return new Reset();
    }

    /// <summary>Runs <paramref name="reached"/> each time the runtime reaches <paramref name="point"/>.</summary>
    public static IDisposable On(string point, Action reached)
    {
        RaceProbe.Probe = name =>
        {
            if (name == point)
            {
                reached();
            }
        };
        return new Reset();
    }

    private sealed class Reset : IDisposable
    {
        public void Dispose() => RaceProbe.Probe = null;
    }
}

[CollectionDefinition(RaceProbes.Collection, DisableParallelization = true)]
public sealed class RaceProbeCollection;
