using Salsa.Grid.Partitions;

namespace Salsa.Grid.Tests;

/// <summary>
/// <see cref="RangePlacement"/>: every placement is balanced and contiguous, and a join or a leave
/// moves no more partitions than it must — on thousands of random grids, not one example.
/// </summary>
public sealed class RangePlacementTests
{
    private const int Trials = 5_000;

    [Fact]
    public void AnyHomes_GiveBalancedContiguousRuns_OnTheActiveSilosOnly()
    {
        var random = new Random(58);
        for (var trial = 0; trial < Trials; trial++)
        {
            var partitions = random.Next(1, 200);
            var silos = Names(random.Next(1, 20), random);
            var homes = Enumerable.Range(0, partitions).Select(_ => random.Next(3) == 0 ? "gone" : silos[random.Next(silos.Length)]).ToArray();

            var targets = RangePlacement.Targets(homes, silos);

            Assert.All(targets, t => Assert.Contains(t, silos));
            var shares = targets.Select((t, i) => (t, i)).GroupBy(p => p.t).ToDictionary(g => g.Key, g => g.Select(p => p.i).ToArray());
            Assert.All(shares.Values, run => Assert.Equal(run[^1] - run[0] + 1, run.Length));
            Assert.All(shares.Values, run => Assert.InRange(run.Length, partitions / silos.Length, (partitions + silos.Length - 1) / silos.Length));
            Assert.Equal(Math.Min(partitions, silos.Length), shares.Count);
            // Placed where they are, nothing moves: the placement is a fixed point.
            Assert.Equal(targets, RangePlacement.Targets(targets, silos));
            Assert.Equal(targets, RangePlacement.Targets(homes, [.. silos.Reverse()]));
        }
    }

    [Fact]
    public void AJoinOrALeave_FromABalancedGrid_MovesNoMoreThanPlacingByAddress()
    {
        var random = new Random(7);
        var (moved, byAddress) = (0L, 0L);
        for (var trial = 0; trial < Trials; trial++)
        {
            var partitions = random.Next(8, 300);
            var silos = Names(random.Next(1, 17), random);
            var homes = RangePlacement.Targets(Enumerable.Repeat("none", partitions).ToArray(), silos);
            var leaver = random.Next(silos.Length);
            string[] changed = random.Next(2) == 0 || silos.Length == 1
                ? [.. silos, $"S10.0.0.{random.Next(256)}:{random.Next(1, 65536)}:{trial}"]
                : [.. silos.Where((_, i) => i != leaver)];
            // Equal contiguous runs over the silos in address order: placement before the grid was elastic.
            var ordered = changed.Order(StringComparer.Ordinal).ToArray();
            var plain = Enumerable.Range(0, partitions).Select(i => ordered[(int)((long)i * ordered.Length / partitions)]).ToArray();

            var targets = RangePlacement.Targets(homes, changed);

            var (m, a) = (Moves(homes, targets), Moves(homes, plain));
            Assert.True(m <= a, $"{m} moved, {a} by address ({partitions} partitions, {silos.Length} → {changed.Length} silos)");
            (moved, byAddress) = (moved + m, byAddress + a);
        }

        Assert.True(moved < byAddress * 0.9, $"{moved} moved in all, {byAddress} by address");
    }

    private static int Moves(string[] from, string[] to) => Enumerable.Range(0, from.Length).Count(i => from[i] != to[i]);

    [Fact]
    public void TwoSilosToThree_TheJoinerTakesTheMiddleRun_WhateverItsAddress()
    {
        // The joiner's address orders first: placing by address would give it partitions 0–21 and
        // shift the others' runs, 33 of 64 moved; it takes 22–42, only the 21 it must.
        var homes = Enumerable.Range(0, 64).Select(i => i < 32 ? "S127.0.0.1:40603" : "S127.0.0.1:44469").ToArray();

        var targets = RangePlacement.Targets(homes, ["S127.0.0.1:40603", "S127.0.0.1:44469", "S127.0.0.1:33063"]);

        Assert.Equal(21, Enumerable.Range(0, 64).Count(i => targets[i] != homes[i]));
        Assert.All(Enumerable.Range(22, 21), i => Assert.Equal("S127.0.0.1:33063", targets[i]));
        Assert.Throws<ArgumentException>(() => RangePlacement.Targets(homes, []));
    }

    private static string[] Names(int count, Random random) =>
        [.. Enumerable.Range(0, count).Select(i => $"S127.0.0.1:{random.Next(1024, 65536)}:{i}")];
}
