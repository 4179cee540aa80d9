using System.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Salsa.Grid.Partitions;

/// <summary>
/// A silo asked to stop (SIGTERM, <c>docker compose stop</c>, a scale-down) first hands its
/// partitions over: before Orleans marks it shutting down and deactivates its grains, it says it is
/// leaving (its pass answers carry it), and running jobs' coordinators move its partitions to the
/// other silos between two of their passes (<see cref="GrainPartitions.Elastic"/>), rows loaded there
/// ahead. It waits until it holds none, or no pass has come for <see cref="Quiet"/> (no job is using
/// what it still holds), or for <see cref="Stalled"/> nothing moved off and no pass said a move is
/// being prepared (no one can take them), or <paramref name="limit"/> has passed — then the stop goes
/// on, and no job waits for a lost silo's retry. A silo with no other active silo to hand over to (the embedded
/// single silo) stops at once: its jobs resume from their checkpoints when a silo is back.
/// </summary>
public sealed partial class SiloLeaving(SiloPartitions held, IClusterMembershipService membership, ILocalSiloDetails self, ILogger<SiloLeaving> logger, TimeSpan limit)
    : ILifecycleParticipant<ISiloLifecycle>
{
    /// <summary>How long without a pass means no running job uses this silo's partitions.</summary>
    public static readonly TimeSpan Quiet = TimeSpan.FromSeconds(2);

    /// <summary>How long with no partition moved off, and no pass saying a move is being prepared, means no one is taking them (every other silo is stopping too).</summary>
    public static readonly TimeSpan Stalled = TimeSpan.FromSeconds(5);

    public void Participate(ISiloLifecycle lifecycle)
    {
        ArgumentNullException.ThrowIfNull(lifecycle);
        // Stopped before BecomeActive's stop, where Orleans marks the silo shutting down and
        // deactivates every grain.
        lifecycle.Subscribe(nameof(SiloLeaving), ServiceLifecycleStage.Active, _ => Task.CompletedTask, LeaveAsync);
    }

    private async Task LeaveAsync(CancellationToken cancellationToken)
    {
        var others = membership.CurrentSnapshot.Members.Values.Count(m => m.Status == SiloStatus.Active && !m.SiloAddress.Equals(self.SiloAddress));
        if (held.Count == 0 || others == 0)
        {
            return;
        }

        held.Leaving = true;
        var clock = Stopwatch.StartNew();
        LogLeaving(logger, held.Count);
        // Handing over shows within a second or two (rows loaded, then the move); when nothing has
        // moved for Stalled — every other silo is stopping too, as in a whole cluster's shutdown —
        // there is no one to hand over to. Woken by each partition moved off and each pass.
        var (count, moved) = (held.Count, Stopwatch.StartNew());
        while (!cancellationToken.IsCancellationRequested)
        {
            var changed = held.Changed;
            if (held.Count != count)
            {
                count = held.Count;
                moved.Restart();
            }

            // A coordinator loading this silo's partitions' rows elsewhere says so with each pass: a
            // handover under way, however long the rows take to load.
            var sinceProgress = held.SinceHandover < moved.Elapsed ? held.SinceHandover : moved.Elapsed;
            var wait = Min(Quiet - held.SinceLastPass, Stalled - sinceProgress, limit - clock.Elapsed);
            if (count == 0 || wait <= TimeSpan.Zero)
            {
                break;
            }

            try
            {
                await changed.WaitAsync(wait, cancellationToken).ConfigureAwait(false);
            }
            catch (Exception e) when (e is TimeoutException or OperationCanceledException)
            {
                // A bound reached: the loop's test says which.
            }
        }

        LogLeft(logger, held.Count, clock.Elapsed.TotalSeconds);
    }

    private static TimeSpan Min(TimeSpan a, TimeSpan b, TimeSpan c) => a < b ? (a < c ? a : c) : (b < c ? b : c);

    [LoggerMessage(Level = LogLevel.Information, Message = "Leaving the grid: handing over {Partitions} partitions between the running jobs' passes.")]
    private static partial void LogLeaving(ILogger logger, int partitions);

    [LoggerMessage(Level = LogLevel.Information, Message = "Left the grid with {Partitions} partitions still held after {Seconds:F1} s.")]
    private static partial void LogLeft(ILogger logger, int partitions, double seconds);
}
