using Salsa.Clustering.Annealing;
using Salsa.Clustering.KMeans;
using Salsa.Grid.Annealing;
using Salsa.Grid.Jobs;
using Salsa.Grid.KMeans;
using Salsa.Store;

namespace Salsa.Bench.Experiments;

/// <summary>Whole jobs on a silo cluster, as a client runs them (start, watch, result), and their bits against one process.</summary>
internal static class ClusterJobs
{
    /// <summary>A DA job of <paramref name="datasetId"/> cut into <paramref name="partitions"/>; <paramref name="watch"/> sees every view until it ends.</summary>
    public static async Task<(GridJobView View, AnnealingResult Result)> AnnealAsync(
        IGrainFactory grains, Guid datasetId, int partitions, AnnealingOptions options, CancellationToken cancellationToken, Func<GridJobView, Task>? watch = null)
    {
        var coordinator = grains.GetGrain<IAnnealingJobGrain>(Guid.NewGuid());
        await coordinator.StartAsync(AnnealingJobSpec.From(datasetId, partitions, options));
        var (view, json) = await EndAsync(coordinator, cancellationToken, watch);
        return (view, StateJson.Read<AnnealingResult>(json));
    }

    /// <summary>A k-means job (k-means++ seeding through the partitions, then Lloyd passes).</summary>
    public static async Task<(GridJobView View, KMeansResult Result)> KMeansAsync(
        IGrainFactory grains, Guid datasetId, int partitions, KMeansOptions options, CancellationToken cancellationToken)
    {
        var coordinator = grains.GetGrain<IKMeansJobGrain>(Guid.NewGuid());
        await coordinator.StartAsync(KMeansJobSpec.From(datasetId, partitions, options));
        var (view, json) = await EndAsync(coordinator, cancellationToken);
        return (view, StateJson.Read<KMeansResult>(json));
    }

    /// <summary>
    /// Watches a job to its end as a service does (the coordinator's stream); a stream cut while a
    /// silo is replaced is opened again. Its result, or the reason it failed.
    /// </summary>
    private static async Task<(GridJobView View, string Result)> EndAsync(IGridJobGrain coordinator, CancellationToken cancellationToken, Func<GridJobView, Task>? watch = null)
    {
        while (true)
        {
            try
            {
                await foreach (var view in coordinator.WatchAsync(cancellationToken))
                {
                    if (view.IsFinished)
                    {
                        return view.Status == JobState.Succeeded
                            ? (view, await coordinator.ResultAsync() ?? throw new InvalidOperationException("The job succeeded without a result."))
                            : throw new InvalidOperationException($"The job ended {view.Status}: {view.Error}");
                    }

                    if (watch is not null)
                    {
                        await watch(view);
                    }
                }
            }
            catch (Exception exception) when (exception is OrleansException or TimeoutException && !cancellationToken.IsCancellationRequested)
            {
                await Task.Delay(100, cancellationToken);
            }
        }
    }

    /// <summary>
    /// A job's first run, then runs until <paramref name="warmUp"/> is over, then
    /// <paramref name="repeats"/> timed runs: the first run's seconds and result, the median of the
    /// timed ones, and whether <paramref name="check"/> held for every result.
    /// </summary>
    public static async Task<((double Seconds, T Result) First, double Median, bool AllHold)> TimeJobsAsync<T>(
        Func<Task<T>> job, Harness.WarmUp warmUp, int repeats, Func<T, bool>? check = null)
    {
        var allHold = true;
        async Task<(double Seconds, T Result)> TimedAsync()
        {
            var clock = System.Diagnostics.Stopwatch.StartNew();
            var result = await job();
            var seconds = clock.Elapsed.TotalSeconds;
            allHold &= check?.Invoke(result) ?? true;
            return (seconds, result);
        }

        var first = await TimedAsync();
        while (!warmUp.Over())
        {
            await TimedAsync();
        }

        var times = new List<double>();
        while (times.Count < repeats)
        {
            times.Add((await TimedAsync()).Seconds);
        }

        return (first, Harness.Statistics.Median(times), allHold);
    }

    /// <summary>
    /// A job's rows: its next run's seconds and its first's (a process's first job of a kind compiles
    /// its code), and, on silos, both against the same job in one process (<paramref name="inProcess"/>).
    /// </summary>
    public static void AddJobRows(Harness.ExperimentContext context, string @case, (double First, double Next) seconds, (double First, double Next)? inProcess)
    {
        context.Add(@case, "seconds_per_job", seconds.Next, "s");
        context.Add(@case, "seconds_per_job_first", seconds.First, "s");
        if (inProcess is { } reference)
        {
            context.Add(@case, "ratio_to_in_process", seconds.Next / reference.Next, "×");
            context.Add(@case, "ratio_to_in_process_first", seconds.First / reference.First, "×");
        }
    }

    public static bool SameBits(double[] expected, double[] actual) =>
        expected.Length == actual.Length && expected.Zip(actual).All(p => BitConverter.DoubleToInt64Bits(p.First) == BitConverter.DoubleToInt64Bits(p.Second));

    public static bool SameBits(AnnealingResult expected, AnnealingResult actual) =>
        expected.Clusters == actual.Clusters && SameBits(expected.Centres, actual.Centres) && expected.Assignments.SequenceEqual(actual.Assignments)
        && BitConverter.DoubleToInt64Bits(expected.WeightedCost) == BitConverter.DoubleToInt64Bits(actual.WeightedCost);

    public static bool SameBits(KMeansResult expected, KMeansResult actual) =>
        SameBits(expected.Centres, actual.Centres) && expected.Assignments.SequenceEqual(actual.Assignments)
        && BitConverter.DoubleToInt64Bits(expected.Inertia) == BitConverter.DoubleToInt64Bits(actual.Inertia);
}
