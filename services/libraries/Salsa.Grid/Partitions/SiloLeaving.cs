using System.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Salsa.Grid.Partitions;

/// <summary>
/// A silo asked to stop (SIGTERM, <c>docker compose stop</c>, a scale-down) first hands its
/// partitions over: before Orleans marks it shutting down and deactivates its grains, it says it is
/// leaving (its pass answers carry it), and running jobs' coordinators move its partitions to the
/// other silos between two of their passes (<see cref="GrainPartitions.Elastic"/>), rows loaded there
/// ahead. It waits until it holds none, or no pass has come for <see cref="Quiet"/> (no job is using
/// what it still holds), or <paramref name="limit"/> has passed — then the stop goes on, and no job
/// waits for a lost silo's retry.
/// </summary>
public sealed partial class SiloLeaving(SiloPartitions held, ILogger<SiloLeaving> logger, TimeSpan limit) : ILifecycleParticipant<ISiloLifecycle>
{
    /// <summary>How long without a pass means no running job uses this silo's partitions.</summary>
    public static readonly TimeSpan Quiet = TimeSpan.FromSeconds(2);

    public void Participate(ISiloLifecycle lifecycle)
    {
        ArgumentNullException.ThrowIfNull(lifecycle);
        // Stopped before BecomeActive's stop, where Orleans marks the silo shutting down and
        // deactivates every grain.
        lifecycle.Subscribe(nameof(SiloLeaving), ServiceLifecycleStage.Active, _ => Task.CompletedTask, LeaveAsync);
    }

    private async Task LeaveAsync(CancellationToken cancellationToken)
    {
        if (held.Count == 0)
        {
            return;
        }

        held.Leaving = true;
        var clock = Stopwatch.StartNew();
        LogLeaving(logger, held.Count);
        while (held.Count > 0 && held.SinceLastPass < Quiet && clock.Elapsed < limit && !cancellationToken.IsCancellationRequested)
        {
            await Task.Delay(TimeSpan.FromMilliseconds(50), CancellationToken.None);
        }

        LogLeft(logger, held.Count, clock.Elapsed.TotalSeconds);
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Leaving the grid: handing over {Partitions} partitions between the running jobs' passes.")]
    private static partial void LogLeaving(ILogger logger, int partitions);

    [LoggerMessage(Level = LogLevel.Information, Message = "Left the grid with {Partitions} partitions still held after {Seconds:F1} s.")]
    private static partial void LogLeft(ILogger logger, int partitions, double seconds);
}
