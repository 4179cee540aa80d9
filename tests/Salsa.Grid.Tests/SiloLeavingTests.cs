using System.Diagnostics;
using Salsa.Grid.Partitions;

namespace Salsa.Grid.Tests;

/// <summary>
/// When a leaving silo goes (<see cref="SiloLeaving.UntilDecided"/>): not while a job still uses
/// what it holds — however slowly that job's passes come while rows load on the silos taking over —
/// and not later than needed when nothing is coming.
/// </summary>
public sealed class SiloLeavingTests
{
    private static readonly TimeSpan Never = TimeSpan.MaxValue;
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(120);

    private static TimeSpan S(double seconds) => TimeSpan.FromSeconds(seconds);

    [Fact]
    public void HoldingNothing_GoesAtOnce() =>
        Assert.True(SiloLeaving.UntilDecided(0, S(0.5), S(0), S(0), S(0), S(0), Limit) <= TimeSpan.Zero);

    [Fact]
    public void PassesEveryHalfSecond_ThenNoneForTwo_TheJobEnded_Goes()
    {
        Assert.True(SiloLeaving.UntilDecided(3, S(0.5), S(1.9), Never, S(1.9), S(1.9), Limit) > TimeSpan.Zero);
        Assert.True(SiloLeaving.UntilDecided(3, S(0.5), S(2.01), Never, S(2.01), S(2.01), Limit) <= TimeSpan.Zero);
    }

    [Fact]
    public void PassesSlowedToThreeSeconds_TheGapIsNotTakenForTheJobsEnd()
    {
        // Measured at 10 M points: passes 2.9 s apart while the rows of 33 partitions loaded on the
        // two silos taking them; a 2 s quiet made the silo go holding 21 partitions.
        var wait = SiloLeaving.UntilDecided(21, S(2.9), S(2.5), Never, S(2.5), S(2.5), Limit);
        Assert.True(wait > TimeSpan.Zero && wait <= S(9.11), $"{wait}");
    }

    [Fact]
    public void AMoveBeingPrepared_KeepsItWaiting_UntilNoPassHasSaidSoForStalled()
    {
        // The last pass came 8 s ago (rows loading for long) but said a move off it is being prepared.
        Assert.True(SiloLeaving.UntilDecided(21, S(0.5), S(4.0), S(4.0), S(9), S(9), Limit) > TimeSpan.Zero);
        Assert.True(SiloLeaving.UntilDecided(21, S(0.5), S(5.1), S(5.1), S(9), S(9), Limit) <= TimeSpan.Zero);
    }

    [Fact]
    public void PassesComing_ButNothingMovedAndNoMovePrepared_NoOneCanTakeThem_Goes()
    {
        Assert.True(SiloLeaving.UntilDecided(21, S(0.5), S(0.1), Never, S(4.9), S(4.9), Limit) > TimeSpan.Zero);
        Assert.True(SiloLeaving.UntilDecided(21, S(0.5), S(0.1), Never, S(5.01), S(5.01), Limit) <= TimeSpan.Zero);
    }

    [Fact]
    public void TheLimit_EndsAnyWait_AndAHugeGapWaitsNoMoreThanPatience()
    {
        Assert.True(SiloLeaving.UntilDecided(21, S(0.5), S(0.1), S(0.1), S(0.1), Limit, Limit) <= TimeSpan.Zero);
        var wait = SiloLeaving.UntilDecided(21, TimeSpan.FromHours(1), S(0), Never, S(0), S(0), TimeSpan.FromHours(2));
        Assert.Equal(SiloLeaving.Patience, wait);
    }

    [Fact]
    public void HandedOver_ItStaysTwoPassGaps_ForCallsInFlight_BetweenAQuarterSecondAndTwo()
    {
        Assert.Equal(TimeSpan.FromMilliseconds(250), SiloLeaving.DrainFor(TimeSpan.Zero));
        Assert.Equal(S(1.2), SiloLeaving.DrainFor(S(0.6)));
        Assert.Equal(S(2), SiloLeaving.DrainFor(S(30)));
    }

    [Fact]
    public void PassGap_IsTheLongestGap_FadingByAQuarterAPass_UnderManyThreads()
    {
        var held = new SiloPartitions();
        var second = Stopwatch.Frequency;
        var t = Stopwatch.GetTimestamp();
        held.NotePass(t);
        Assert.Equal(TimeSpan.Zero, held.PassGap);
        held.NotePass(t += 4 * second);
        Assert.Equal(S(4), held.PassGap);
        held.NotePass(t += second / 10);
        Assert.Equal(S(3), held.PassGap);
        held.NotePass(t += 5 * second);
        Assert.Equal(S(5), held.PassGap);

        // Passes of several jobs crossing: whatever the interleaving, the gap never exceeds the
        // longest real gap between two arrivals and never goes negative.
        for (var trial = 0; trial < 200; trial++)
        {
            var start = Stopwatch.GetTimestamp();
            var many = new SiloPartitions();
            Parallel.For(0, 8, _ =>
            {
                for (var i = 0; i < 2_000; i++)
                {
                    many.NotePass(Stopwatch.GetTimestamp());
                }
            });
            var span = Stopwatch.GetElapsedTime(start);
            Assert.InRange(many.PassGap, TimeSpan.Zero, span);
        }
    }
}
