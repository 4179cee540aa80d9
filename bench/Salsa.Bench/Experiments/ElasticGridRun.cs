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
    /// gets SIGTERM and hands its partitions over. The pause is the longest pass from the silo's
    /// start (or the signal) until the grid has settled, less the median pass before.
    /// </summary>
    public static async Task RunAsync(ExperimentContext context, string connectionString, Guid datasetId, int partitions, PartitionPass pass, double[] reference, string label, string data, CancellationToken cancellationToken)
    {
        await using var cluster = await ProcessCluster.SharingCoresAsync(connectionString, 2, cancellationToken);
        var grid = await Task.Run(() => GrainPartitions.Open(cluster.Grains, datasetId, partitions, TimeSpan.FromMinutes(5), cancellationToken), cancellationToken);
        grid.Elastic(cluster.ActiveSilos);
        await cluster.QuietAsync(cancellationToken);
        var clock = Stopwatch.StartNew();
        var walls = new List<(double At, double Wall)>();
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
                    walls.Add((at, clock.Elapsed.TotalSeconds - at));
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
        var joinWalls = Walls(joinAt, joined + 2);
        var shares = (await Task.WhenAll(PartitionKey.Grid(datasetId, partitions).Select(k => cluster.Grains.GetGrain<IPartitionGrain>(k.ToGrainKey()).InfoAsync())))
            .GroupBy(i => i.Silo).Select(g => g.Count()).ToArray();

        // One of the three is asked to stop (SIGTERM) and hands its partitions over.
        var leaveAt = clock.Elapsed.TotalSeconds;
        retriesBefore = grid.Statistics.Retries;
        var leaving = cluster.Silos[0];
        var exited = await leaving.TerminateAsync(TimeSpan.FromSeconds(90));
        var exitedAt = clock.Elapsed.TotalSeconds;
        var left = await SettleAsync(() => grid.Silos.Length == 2 && !grid.Moving);
        await Task.Delay(TimeSpan.FromSeconds(2), cancellationToken);
        var leaveRetries = grid.Statistics.Retries - retriesBefore;
        var leaveWalls = Walls(leaveAt, left + 2);
        await stop.CancelAsync();
        await loop;

        var @case = label + ",silos=2→3→2";
        context.Add(@case, "pass_s", steady, "s");
        context.Add(@case, "join_pause_s", joinWalls.DefaultIfEmpty(steady).Max() - steady, "s");
        context.Add(@case, "join_seconds_to_share", joined - joinAt, "s");
        context.Add(@case, "join_retries", joinRetries, "calls");
        context.Add(@case, "partitions_per_silo_after_join_min", shares.Min(), "partitions");
        context.Add(@case, "partitions_per_silo_after_join_max", shares.Max(), "partitions");
        context.Add(@case, "leave_pause_s", leaveWalls.DefaultIfEmpty(steady).Max() - steady, "s");
        context.Add(@case, "leave_seconds_to_exit", exitedAt - leaveAt, "s");
        context.Add(@case, "leave_retries", leaveRetries, "calls");
        context.Add(@case, "leave_exited", exited ? 1 : 0, "bool");
        context.Add(@case, "moved_partitions", grid.Moved.Partitions, "partitions");
        context.Add(@case, "identical_to_single_node", identical ? 1 : 0, "bool");
        context.Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"  elastic: pass {steady * 1000:F1} ms; join: share after {joined - joinAt:F1} s, pause {(joinWalls.DefaultIfEmpty(steady).Max() - steady) * 1000:F0} ms, {joinRetries} retries, partitions per silo {string.Join('/', shares)}; " +
            $"leave: exited after {exitedAt - leaveAt:F1} s, pause {(leaveWalls.DefaultIfEmpty(steady).Max() - steady) * 1000:F0} ms, {leaveRetries} retries; identical {identical}"));
        context.Section("Silos joining and leaving", string.Create(CultureInfo.InvariantCulture,
            $"{data} in {partitions} partitions, with passes running back to back from this process, on two silo processes; a third silo process joins, then one of the three gets SIGTERM (as `docker compose stop` sends it). " +
            $"**Pause** is the longest pass from the silo's start (or the signal) until the grid has settled, less the median pass before ({steady * 1000:F1} ms); **to share** is from starting the silo process (its own start-up included) until its partitions are on it; " +
            $"**retries** are partitions asked again as after a failure. Every pass is compared with the grid in one process, bit for bit."));
        context.Table(["", "pause, s", "seconds", "retries", "identical"],
            [
                ["a silo joins (2 → 3)", (joinWalls.DefaultIfEmpty(steady).Max() - steady).ToString("F3", CultureInfo.InvariantCulture), $"{joined - joinAt:F1} to share ({string.Join('/', shares)} partitions per silo)", joinRetries.ToString(CultureInfo.InvariantCulture), identical ? "yes" : "no"],
                ["a silo leaves (3 → 2, SIGTERM)", (leaveWalls.DefaultIfEmpty(steady).Max() - steady).ToString("F3", CultureInfo.InvariantCulture), $"{exitedAt - leaveAt:F1} to exit{(exited ? "" : " (did not exit)")}", leaveRetries.ToString(CultureInfo.InvariantCulture), identical ? "yes" : "no"],
            ]);
    }
}
