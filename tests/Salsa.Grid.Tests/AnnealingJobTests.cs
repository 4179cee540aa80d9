using Microsoft.Extensions.DependencyInjection;
using Salsa.Clustering.Annealing;
using Salsa.Grid.Annealing;
using Salsa.Grid.Jobs;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Grid.Tests;

/// <summary>
/// Annealing jobs on real silos: a coordinator grain drives the loop over a fixed grid of partition
/// grains that load their rows from the store; the result is the same bits on one silo or two, on
/// the embedded single silo, and as the grid computed in this process.
/// </summary>
public sealed class AnnealingJobTests(PostgresFixture postgres)
{
    private const int Partitions = 6;
    private static readonly AnnealingOptions Options = new() { MaxClusters = 8, CoolingFactor = 0.9 };

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Job_OnOneSiloAndOnTwo_SameBitsAsTheGridInOneProcess()
    {
        var connectionString = await postgres.NewDatabaseAsync();
        var mixture = new Mixture(4_001, 11);
        var reference = mixture.Reference(Partitions, Options);
        var store = Silos.PostgresStore(connectionString);
        AnnealingResult oneSilo;
        using (var silo = await Silos.StartAsync(connectionString, $"one-{Guid.NewGuid():N}", store))
        {
            await mixture.StoreAsync(silo.Services.GetRequiredService<IDataStore>(), Token);
            var grains = silo.Services.GetRequiredService<IGrainFactory>();
            var job = Guid.NewGuid();
            await grains.GetGrain<IAnnealingJobGrain>(job).StartAsync(AnnealingJobSpec.From(mixture.Id, Partitions, Options));
            (_, oneSilo) = await Jobs.ResultAsync(grains, job, Token);
        }

        var clusterId = $"two-{Guid.NewGuid():N}";
        using var first = await Silos.StartAsync(connectionString, clusterId, store);
        using var second = await Silos.StartAsync(connectionString, clusterId, store);
        await Silos.ActiveSilosAsync(first, 2);
        var factory = first.Services.GetRequiredService<IGrainFactory>();
        var twoJob = Guid.NewGuid();
        var spec = AnnealingJobSpec.From(mixture.Id, Partitions, Options);
        await factory.GetGrain<IAnnealingJobGrain>(twoJob).StartAsync(spec);
        var again = await factory.GetGrain<IAnnealingJobGrain>(twoJob).StartAsync(spec);
        var (view, twoSilos) = await Jobs.ResultAsync(factory, twoJob, Token);

        Mixture.AssertSameBits(reference, oneSilo);
        Mixture.AssertSameBits(reference, twoSilos);
        Assert.Equal(JobState.Running, again.Status);
        Assert.Equal(2, view.Silos.Length);
        Assert.Equal(Partitions, view.Partitions);
        Assert.True(view.Passes.Passes > 10, $"{view.Passes.Passes} passes");
        Assert.True(view.Passes.MessagingMicroseconds > 0);
        await Assert.ThrowsAsync<ArgumentException>(() => factory.GetGrain<IAnnealingJobGrain>(twoJob).StartAsync(spec with { Partitions = 5 }));
    }

    [Fact]
    public async Task Job_OnTheEmbeddedSingleSilo_WithNoPostgres_SameBitsAsTheGridInOneProcess()
    {
        // The embedded default: one silo on localhost clustering, the store a SQLite file.
        using var directory = new TemporaryDirectory();
        var mixture = new Mixture(1_999, 5);
        using var silo = await Silos.StartEmbeddedAsync(directory, b => b.AddSalsaSilo(new SiloSettings { SiloPort = Silos.FreePort(), GatewayPort = Silos.FreePort() }));
        await mixture.StoreAsync(silo.Services.GetRequiredService<IDataStore>(), Token);
        var grains = silo.Services.GetRequiredService<IGrainFactory>();
        var job = Guid.NewGuid();

        await grains.GetGrain<IAnnealingJobGrain>(job).StartAsync(AnnealingJobSpec.From(mixture.Id, 3, Options));
        var (view, result) = await Jobs.ResultAsync(grains, job, Token);

        Mixture.AssertSameBits(mixture.Reference(3, Options), result);
        Assert.Single(view.Silos);
        Assert.True(result.Elapsed > TimeSpan.Zero, $"elapsed {result.Elapsed}");
        await silo.StopAsync(Token);
    }

    [Fact]
    public async Task Watch_ManyWatchersAtOnce_EachSeesTheStepsInOrderAndTheEnd_WhileTheJobReportsAndCheckpoints()
    {
        // The coordinator's stream: a watcher waits in the grain (interleaved with the loop's
        // checkpoints and its completion), wakes on each step, and ends with the finished view.
        using var directory = new TemporaryDirectory();
        var mixture = new Mixture(3_001, 7);
        using var silo = await Silos.StartEmbeddedAsync(directory, b => b.AddSalsaSilo(
            new SiloSettings { SiloPort = Silos.FreePort(), GatewayPort = Silos.FreePort(), Jobs = new GridJobOptions { CheckpointInterval = TimeSpan.Zero } }));
        await mixture.StoreAsync(silo.Services.GetRequiredService<IDataStore>(), Token);
        var grains = silo.Services.GetRequiredService<IGrainFactory>();
        var job = Guid.NewGuid();
        var coordinator = grains.GetGrain<IAnnealingJobGrain>(job);

        await coordinator.StartAsync(AnnealingJobSpec.From(mixture.Id, 3, Options));
        var watches = await Task.WhenAll(Enumerable.Range(0, 8).Select(async _ =>
        {
            var seen = new List<GridJobView>();
            await foreach (var view in coordinator.WatchAsync(Token))
            {
                seen.Add(view);
            }

            return seen;
        }));

        var final = await coordinator.GetAsync();
        Assert.Equal(JobState.Succeeded, final.Status);
        Assert.True(final.Checkpoints > 1, $"{final.Checkpoints} checkpoints");
        foreach (var seen in watches)
        {
            Assert.True(seen[^1].IsFinished, "the stream ends with the finished job");
            Assert.Equal(JobState.Succeeded, seen[^1].Status);
            Assert.Single(seen, v => v.IsFinished);
            Assert.True(seen.Count > 2, $"{seen.Count} views: the steps between the start and the end");
            var iterations = seen.Select(v => v.Iterations).ToArray();
            Assert.Equal(iterations.Order(), iterations);
        }

        // A job already finished: its stream is the one finished view.
        var after = new List<GridJobView>();
        await foreach (var view in coordinator.WatchAsync(Token))
        {
            after.Add(view);
        }

        Assert.Equal(JobState.Succeeded, Assert.Single(after).Status);
        await silo.StopAsync(Token);
    }

    [Fact]
    public async Task Watch_SendsProgressAtMostEveryWatchInterval_NotAViewPerPass()
    {
        using var directory = new TemporaryDirectory();
        var mixture = new Mixture(20_001, 11);
        var interval = TimeSpan.FromMilliseconds(100);
        using var silo = await Silos.StartEmbeddedAsync(directory, b => b.AddSalsaSilo(new SiloSettings
        {
            SiloPort = Silos.FreePort(),
            GatewayPort = Silos.FreePort(),
            Jobs = new GridJobOptions { CheckpointInterval = TimeSpan.FromHours(1), WatchInterval = interval },
        }));
        await mixture.StoreAsync(silo.Services.GetRequiredService<IDataStore>(), Token);
        var coordinator = silo.Services.GetRequiredService<IGrainFactory>().GetGrain<IAnnealingJobGrain>(Guid.NewGuid());

        await coordinator.StartAsync(AnnealingJobSpec.From(mixture.Id, 3, Options with { MaxClusters = 12 }));
        var clock = System.Diagnostics.Stopwatch.StartNew();
        var seen = new List<(GridJobView View, TimeSpan At)>();
        await foreach (var view in coordinator.WatchAsync(Token))
        {
            seen.Add((view, clock.Elapsed));
        }

        var final = seen[^1].View;
        Assert.Equal(JobState.Succeeded, final.Status);
        // No checkpoint was due (an hour apart), so every view but the first and the last is
        // progress alone: at most one per interval of the watch's time.
        var progress = seen.Count - 2;
        Assert.True(progress <= seen[^1].At / interval + 1, $"{progress} progress views in {seen[^1].At.TotalMilliseconds:F0} ms");

        Assert.True(final.Passes.Passes > 4 * seen.Count, $"{seen.Count} views for {final.Passes.Passes} passes");
        Assert.Equal(seen.Select(v => v.View.Iterations).Order(), seen.Select(v => v.View.Iterations));
        await silo.StopAsync(Token);
    }

    [Fact]
    public async Task Job_OfAMissingDataset_FailsWithTheReason()
    {
        using var directory = new TemporaryDirectory();
        using var silo = await Silos.StartEmbeddedAsync(directory, b => b.AddSalsaSilo(
            new SiloSettings { SiloPort = Silos.FreePort(), GatewayPort = Silos.FreePort(), Jobs = new GridJobOptions { PartitionRetry = TimeSpan.FromSeconds(1) } }));
        var grains = silo.Services.GetRequiredService<IGrainFactory>();
        var job = Guid.NewGuid();

        await grains.GetGrain<IAnnealingJobGrain>(job).StartAsync(AnnealingJobSpec.From(Guid.NewGuid(), 3, Options));
        var view = await Jobs.WaitAsync(grains, job, _ => false, Token);

        Assert.Equal(JobState.Failed, view.Status);
        Assert.Contains("No dataset", view.Error, StringComparison.Ordinal);
        await silo.StopAsync(Token);
    }
}
