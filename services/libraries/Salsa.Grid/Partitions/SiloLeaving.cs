using System.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Salsa.Grid.Partitions;

/// <summary>
/// A silo asked to stop (SIGTERM, <c>docker compose stop</c>, a scale-down) first hands its
/// partitions over: before Orleans marks it shutting down and deactivates its grains, it says it is
/// leaving (its pass answers carry it), and running jobs' coordinators move its partitions to the
/// other silos between two of their passes (<see cref="GrainPartitions.Elastic"/>), rows loaded there
/// ahead. It waits until it holds none, or no job is using what it still holds (no pass for
/// <see cref="Quiet"/>, longer when passes lately came further apart, and no pass saying a move is
/// being prepared), or no one can take them (for <see cref="Stalled"/> nothing moved off and no pass
/// said a move is being prepared), or <paramref name="limit"/> has passed — then the stop goes on,
/// and no job waits for a lost silo's retry. A silo with no other active silo to hand over to (the
/// embedded single silo) stops at once: its jobs resume from their checkpoints when a silo is back.
/// </summary>
public sealed partial class SiloLeaving(SiloPartitions held, IClusterMembershipService membership, ILocalSiloDetails self, ILogger<SiloLeaving> logger, TimeSpan limit)
    : ILifecycleParticipant<ISiloLifecycle>
{
    /// <summary>How long without a pass means no running job uses this silo's partitions, at least (<see cref="UntilDecided"/>).</summary>
    public static readonly TimeSpan Quiet = TimeSpan.FromSeconds(2);

    /// <summary>How long with no partition moved off, and no pass saying a move is being prepared, means no one is taking them (every other silo is stopping too), at least.</summary>
    public static readonly TimeSpan Stalled = TimeSpan.FromSeconds(5);

    /// <summary>The longest <see cref="Quiet"/> and <see cref="Stalled"/> grow to when passes come far apart.</summary>
    public static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    /// <summary>
    /// How long a silo that has handed every partition over stays before it stops: two of the
    /// latest gaps between passes, at least 0.25 s and at most 2 s — a pass in flight when the last
    /// partition moved may still reach its old activation here through a caller's directory cache,
    /// and is forwarded on rather than failing on a silo gone (the partition asked again).
    /// </summary>
    public static TimeSpan DrainFor(TimeSpan passGap) => Clamp(passGap * 2, TimeSpan.FromMilliseconds(250), TimeSpan.FromSeconds(2));

    /// <summary>
    /// How long a leaving silo waits before it looks again; zero or less: it goes now. It holds
    /// <paramref name="count"/> partitions; passes lately came <paramref name="passGap"/> apart
    /// (<see cref="SiloPartitions.PassGap"/>), the last <paramref name="sinceLastPass"/> ago, the last
    /// saying a move off it is being prepared <paramref name="sinceHandover"/> ago; a partition last
    /// moved off it (or it began to leave) <paramref name="sinceMoved"/> ago, and it has been leaving
    /// for <paramref name="leaving"/> of its <paramref name="limit"/>. A job whose passes slow down —
    /// rows loading on the silos taking the partitions share the cores — is not taken for one that
    /// ended: the waits are four passes' gaps when that is longer, up to <see cref="Patience"/>.
    /// </summary>
    public static TimeSpan UntilDecided(int count, TimeSpan passGap, TimeSpan sinceLastPass, TimeSpan sinceHandover, TimeSpan sinceMoved, TimeSpan leaving, TimeSpan limit)
    {
        if (count == 0)
        {
            return TimeSpan.Zero;
        }

        var quiet = Clamp(passGap * 4, Quiet, Patience);
        var stalled = Clamp(passGap * 4, Stalled, Patience);
        // A move being prepared says a job uses the partitions, however long since its last pass.
        var untilQuiet = Max(quiet - sinceLastPass, stalled - sinceHandover);
        var untilStalled = stalled - Min(sinceHandover, sinceMoved);
        return Min(Min(untilQuiet, untilStalled), limit - leaving);
    }

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
            var wait = UntilDecided(count, held.PassGap, held.SinceLastPass, held.SinceHandover, moved.Elapsed, clock.Elapsed, limit);
            if (wait <= TimeSpan.Zero)
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

        if (held.Count == 0 && !cancellationToken.IsCancellationRequested)
        {
            // Handed over: calls sent to its partitions' old activations before their callers learnt
            // where they went are still forwarded on for a moment, instead of failing on a silo gone.
            try
            {
                await Task.Delay(DrainFor(held.PassGap), cancellationToken).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                // The host's own limit came first.
            }
        }

        LogLeft(logger, held.Count, clock.Elapsed.TotalSeconds);
    }

    private static TimeSpan Min(TimeSpan a, TimeSpan b) => TimeSpan.FromTicks(Math.Min(a.Ticks, b.Ticks));

    private static TimeSpan Max(TimeSpan a, TimeSpan b) => TimeSpan.FromTicks(Math.Max(a.Ticks, b.Ticks));

    private static TimeSpan Clamp(TimeSpan value, TimeSpan least, TimeSpan most) => TimeSpan.FromTicks(Math.Clamp(value.Ticks, least.Ticks, most.Ticks));

    [LoggerMessage(Level = LogLevel.Information, Message = "Leaving the grid: handing over {Partitions} partitions between the running jobs' passes.")]
    private static partial void LogLeaving(ILogger logger, int partitions);

    [LoggerMessage(Level = LogLevel.Information, Message = "Left the grid with {Partitions} partitions still held after {Seconds:F1} s.")]
    private static partial void LogLeft(ILogger logger, int partitions, double seconds);
}
