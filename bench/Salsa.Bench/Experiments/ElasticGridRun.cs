using System.Diagnostics;
using System.Globalization;
using Salsa.Bench.Harness;
using Salsa.Clustering.Partitions;
using Salsa.Grid.Partitions;

namespace Salsa.Bench.Experiments;

/// <summary>Silos joining and leaving a grid under passes, as <c>grid</c> and <c>large</c> measure it.</summary>
internal static class ElasticGridRun
{
    /// <summary>
    /// The elastic grid under a running stream of passes (the coordinator in this process, every
    /// silo a process): a third silo process joins two and takes its share, then one of the three
    /// gets SIGTERM and hands its partitions over — <paramref name="rounds"/> times, each on a
    /// fresh cluster; the rows are the rounds' medians, and each round's figures are shown. The
    /// pause is the longest pass from the silo's start (or the signal) until the grid has settled,
    /// less the median pass on as many silos when nothing moves.
    /// </summary>
    public static async Task RunAsync(ExperimentContext context, string connectionString, Guid datasetId, int partitions, PartitionPass pass, double[] reference, string label, string data, int rounds, CancellationToken cancellationToken)
    {
        var results = new List<Round>();
        for (var r = 0; r < rounds; r++)
        {
            results.Add(await RoundAsync(context, connectionString, datasetId, partitions, pass, reference, cancellationToken));
            var last = results[^1];
            context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"  elastic round {r + 1}: pass {last.Steady * 1000:F1} ms on two silos, {last.SteadyThree * 1000:F1} ms on three; join: share after {last.ToShare:F1} s, pause {last.JoinPause * 1000:F0} ms, {last.JoinRetries} retries, partitions per silo {string.Join('/', last.Shares)}, {last.JoinMoved} moved; " +
                $"leave: exited after {last.ToExit:F1} s, pause {last.LeavePause * 1000:F0} ms, {last.LeaveRetries} retries, {last.LeaveMoved} moved; identical {last.Identical}"));
        }

        double Median(Func<Round, double> of) => Statistics.Median([.. results.Select(of)]);
        var @case = label + ",silos=2→3→2";
        context.Add(@case, "pass_s", Median(r => r.Steady), "s");
        context.Add(@case, "pass_s_three_silos", Median(r => r.SteadyThree), "s");
        context.Add(@case, "join_pause_s", Median(r => r.JoinPause), "s");
        context.Add(@case, "join_pause_s_max", results.Max(r => r.JoinPause), "s");
        context.Add(@case, "join_seconds_to_share", Median(r => r.ToShare), "s");
        context.Add(@case, "join_retries", results.Sum(r => r.JoinRetries), "calls");
        context.Add(@case, "join_moved_partitions", Median(r => r.JoinMoved), "partitions");
        context.Add(@case, "partitions_per_silo_after_join_min", results.Min(r => r.Shares.Min()), "partitions");
        context.Add(@case, "partitions_per_silo_after_join_max", results.Max(r => r.Shares.Max()), "partitions");
        context.Add(@case, "leave_pause_s", Median(r => r.LeavePause), "s");
        context.Add(@case, "leave_pause_s_max", results.Max(r => r.LeavePause), "s");
        context.Add(@case, "leave_seconds_to_exit", Median(r => r.ToExit), "s");
        context.Add(@case, "leave_retries", results.Sum(r => r.LeaveRetries), "calls");
        context.Add(@case, "leave_moved_partitions", Median(r => r.LeaveMoved), "partitions");
        context.Add(@case, "leave_exited", results.All(r => r.Exited) ? 1 : 0, "bool");
        context.Add(@case, "rounds", results.Count, "rounds");
        context.Add(@case, "identical_to_single_node", results.All(r => r.Identical) ? 1 : 0, "bool");
        context.Section("Silos joining and leaving", string.Create(CultureInfo.InvariantCulture,
            $"{data} in {partitions} partitions, with passes running back to back from this process, on two silo processes; a third silo process joins, then one of the three gets SIGTERM (as `docker compose stop` sends it); {results.Count} rounds, each on a fresh cluster, the rows the medians. " +
            $"**Pause** is the longest pass from the silo's start (or the signal) until the grid has settled, less the median pass on as many silos, steady: {Median(r => r.Steady) * 1000:F1} ms on two silos (before the join), {Median(r => r.SteadyThree) * 1000:F1} ms on three (before the leave; three silo processes share this machine's two cores); **to share** is from starting the silo process (its own start-up included) until its partitions are on it; " +
            $"**moved** are the partitions placed on another silo; **retries** are partitions asked again as after a failure. Every pass is compared with the grid in one process, bit for bit."));
        string F(double value) => value.ToString("F3", CultureInfo.InvariantCulture);
        context.Table(["", "round", "pause, s", "seconds", "moved", "retries", "identical"],
            [
                .. results.SelectMany((r, i) => new[]
                {
                    new[] { "a silo joins (2 → 3)", $"{i + 1}", F(r.JoinPause), string.Create(CultureInfo.InvariantCulture, $"{r.ToShare:F1} to share ({string.Join('/', r.Shares)} partitions per silo)"), $"{r.JoinMoved}", $"{r.JoinRetries}", r.Identical ? "yes" : "no" },
                    new[] { "a silo leaves (3 → 2, SIGTERM)", $"{i + 1}", F(r.LeavePause), string.Create(CultureInfo.InvariantCulture, $"{r.ToExit:F1} to exit{(r.Exited ? "" : " (did not exit)")}"), $"{r.LeaveMoved}", $"{r.LeaveRetries}", r.Identical ? "yes" : "no" },
                }),
                ["a silo joins, median", "", F(Median(r => r.JoinPause)), string.Create(CultureInfo.InvariantCulture, $"{Median(r => r.ToShare):F1} to share"), "", "", ""],
                ["a silo leaves, median", "", F(Median(r => r.LeavePause)), string.Create(CultureInfo.InvariantCulture, $"{Median(r => r.ToExit):F1} to exit"), "", "", ""],
            ]);
    }

    private sealed record Round(double Steady, double SteadyThree, double JoinPause, double ToShare, long JoinRetries, long JoinMoved, int[] Shares, double LeavePause, double ToExit, long LeaveRetries, long LeaveMoved, bool Exited, bool Identical);

    private static async Task<Round> RoundAsync(ExperimentContext context, string connectionString, Guid datasetId, int partitions, PartitionPass pass, double[] reference, CancellationToken cancellationToken)
    {
        await using var cluster = await ProcessCluster.SharingCoresAsync(connectionString, 2, cancellationToken);
        var grid = await Task.Run(() => GrainPartitions.Open(cluster.Grains, datasetId, partitions, TimeSpan.FromMinutes(5), cancellationToken), cancellationToken);
        grid.Elastic(cluster.ActiveSilos);
        await cluster.QuietAsync(cancellationToken);
        var clock = Stopwatch.StartNew();
        var walls = new List<(double At, double Wall, int Silos)>();
        var identical = true;
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        var loop = Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                var at = clock.Elapsed.TotalSeconds;
                var sums = grid.Reduce(pass, cancellationToken);
                identical &= ClusterJobs.SameBits(reference, sums);
                lock (walls)
                {
                    walls.Add((at, clock.Elapsed.TotalSeconds - at, grid.Silos.Length));
                }
            }
        }, cancellationToken);

        double[] Walls(double from, double to)
        {
            lock (walls)
            {
                return [.. walls.Where(w => w.At >= from && w.At < to).Select(w => w.Wall)];
            }
        }

        // The longest pass in a window less the median pass on as many silos, steady (three silo
        // processes share this machine's two cores and pass about twice as slowly as two).
        double Pause(double from, double to, double two, double three)
        {
            lock (walls)
            {
                return walls.Where(w => w.At >= from && w.At < to).Select(w => w.Wall - (w.Silos == 3 ? three : two)).DefaultIfEmpty(0).Max();
            }
        }

        async Task<double> SettleAsync(Func<bool> settled)
        {
            var limit = Stopwatch.StartNew();
            while (!settled() && limit.Elapsed < TimeSpan.FromSeconds(120))
            {
                await Task.Delay(50, cancellationToken);
            }

            return clock.Elapsed.TotalSeconds;
        }

        var warm = context.Quick ? 3 : 10;
        await Task.Delay(TimeSpan.FromSeconds(warm + 3), cancellationToken);
        var steady = Statistics.Median(Walls(warm, warm + 3));

        // A silo joins.
        var joinAt = clock.Elapsed.TotalSeconds;
        var retriesBefore = grid.Statistics.Retries;
        await cluster.AddSiloAsync(cancellationToken);
        var joined = await SettleAsync(() => grid.Silos.Length == 3 && !grid.Moving);
        await Task.Delay(TimeSpan.FromSeconds(2), cancellationToken);
        var joinRetries = grid.Statistics.Retries - retriesBefore;
        var joinMoved = grid.Moved.Partitions;
        var shares = (await Task.WhenAll(PartitionKey.Grid(datasetId, partitions).Select(k => cluster.Grains.GetGrain<IPartitionGrain>(k.ToGrainKey()).InfoAsync())))
            .GroupBy(i => i.Silo).Select(g => g.Count()).ToArray();

        // The passes of the three, steady.
        var threeFrom = clock.Elapsed.TotalSeconds;
        await Task.Delay(TimeSpan.FromSeconds(warm / 2 + 3), cancellationToken);
        var steadyThree = Statistics.Median(Walls(threeFrom, clock.Elapsed.TotalSeconds));

        // One of the three is asked to stop (SIGTERM) and hands its partitions over.
        var leaveAt = clock.Elapsed.TotalSeconds;
        retriesBefore = grid.Statistics.Retries;
        var leaving = cluster.Silos[0];
        var exited = await leaving.TerminateAsync(TimeSpan.FromSeconds(90));
        var exitedAt = clock.Elapsed.TotalSeconds;
        var left = await SettleAsync(() => grid.Silos.Length == 2 && !grid.Moving);
        await Task.Delay(TimeSpan.FromSeconds(2), cancellationToken);
        var leaveRetries = grid.Statistics.Retries - retriesBefore;
        await stop.CancelAsync();
        await loop;

        return new Round(steady, steadyThree, Pause(joinAt, joined + 2, steady, steadyThree), joined - joinAt, joinRetries, joinMoved, shares,
            Pause(leaveAt, left + 2, steady, steadyThree), exitedAt - leaveAt, leaveRetries, grid.Moved.Partitions - joinMoved, exited, identical);
    }
}
