using Salsa.Ccr.Internal;

namespace Salsa.Ccr.Tests;

/// <summary>
/// Widens the runtime's named race windows (<see cref="RaceProbe"/>): a thread reaching one spins a
/// random while or gives up its core, so another thread gets in between. The probe is process-wide,
/// so tests that install one run alone (<see cref="Collection"/>).
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

    private sealed class Reset : IDisposable
    {
        public void Dispose() => RaceProbe.Probe = null;
    }
}

[CollectionDefinition(RaceProbes.Collection, DisableParallelization = true)]
public sealed class RaceProbeCollection;
