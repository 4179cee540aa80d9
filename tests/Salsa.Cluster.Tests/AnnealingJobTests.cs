using Microsoft.Extensions.DependencyInjection;
using Salsa.Cluster.Annealing;
using Salsa.Cluster.Jobs;
using Salsa.Clustering.Annealing;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Cluster.Tests;

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
        Assert.Equal(JobStatuses.Running, again.Status);
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
    public async Task Job_OfAMissingDataset_FailsWithTheReason()
    {
        using var directory = new TemporaryDirectory();
        using var silo = await Silos.StartEmbeddedAsync(directory, b => b.AddSalsaSilo(
            new SiloSettings { SiloPort = Silos.FreePort(), GatewayPort = Silos.FreePort(), Jobs = new ClusterJobOptions { PartitionRetry = TimeSpan.FromSeconds(1) } }));
        var grains = silo.Services.GetRequiredService<IGrainFactory>();
        var job = Guid.NewGuid();

        await grains.GetGrain<IAnnealingJobGrain>(job).StartAsync(AnnealingJobSpec.From(Guid.NewGuid(), 3, Options));
        var view = await Jobs.WaitAsync(grains, job, _ => false, Token);

        Assert.Equal(JobStatuses.Failed, view.Status);
        Assert.Contains("No dataset", view.Error, StringComparison.Ordinal);
        await silo.StopAsync(Token);
    }
}
