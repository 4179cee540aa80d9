using Microsoft.Extensions.DependencyInjection;
using Salsa.Clustering.KMeans;
using Salsa.Grid.KMeans;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Grid.Tests;

/// <summary>
/// k-means jobs on real silos: the coordinator seeds through the partitions' masses and runs Lloyd
/// passes over them; the result is the same bits on one silo or two, through a client of the
/// embedded single silo, and as the grid computed in this process.
/// </summary>
public sealed class KMeansJobTests(PostgresFixture postgres)
{
    private const int Partitions = 5;
    private static readonly KMeansOptions Options = new() { Clusters = 9, Restarts = 3, Seed = 4 };

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Job_OnOneSiloAndOnTwo_SameBitsAsTheGridInOneProcess()
    {
        var connectionString = await postgres.NewDatabaseAsync();
        var mixture = new Mixture(6_007, 13);
        var reference = mixture.Reference(Partitions, Options);
        var store = Silos.PostgresStore(connectionString);
        KMeansResult oneSilo;
        using (var silo = await Silos.StartAsync(connectionString, $"one-{Guid.NewGuid():N}", store))
        {
            await mixture.StoreAsync(silo.Services.GetRequiredService<IDataStore>(), Token);
            var grains = silo.Services.GetRequiredService<IGrainFactory>();
            var job = Guid.NewGuid();
            await grains.GetGrain<IKMeansJobGrain>(job).StartAsync(KMeansJobSpec.From(mixture.Id, Partitions, Options));
            (_, oneSilo) = await Jobs.ResultAsync<IKMeansJobGrain, KMeansResult>(grains, job, Token);
        }

        var clusterId = $"two-{Guid.NewGuid():N}";
        using var first = await Silos.StartAsync(connectionString, clusterId, store);
        using var second = await Silos.StartAsync(connectionString, clusterId, store);
        await Silos.ActiveSilosAsync(first, 2);
        var factory = first.Services.GetRequiredService<IGrainFactory>();
        var twoJob = Guid.NewGuid();
        await factory.GetGrain<IKMeansJobGrain>(twoJob).StartAsync(KMeansJobSpec.From(mixture.Id, Partitions, Options));
        var (view, twoSilos) = await Jobs.ResultAsync<IKMeansJobGrain, KMeansResult>(factory, twoJob, Token);

        Mixture.AssertSameBits(reference, oneSilo);
        Mixture.AssertSameBits(reference, twoSilos);
        Assert.Equal("kmeans", view.Algorithm);
        Assert.Equal(2, view.Silos.Length);
        Assert.Null(view.Temperature);
        Assert.True(view.Passes.Passes >= reference.RestartInertias.Count, $"{view.Passes.Passes} passes");
    }

    [Fact]
    public async Task Job_ThroughAClientOfTheEmbeddedSingleSilo_SameBitsAsTheGridInOneProcess()
    {
        // The embedded default: the gateway's process is one silo on localhost clustering (SQLite
        // store), and the services it hosts reach it as clients on its gateway port.
        using var directory = new TemporaryDirectory();
        var mixture = new Mixture(2_503, 17);
        var settings = new SiloSettings { SiloPort = Silos.FreePort(), GatewayPort = Silos.FreePort() };
        using var silo = await Silos.StartEmbeddedAsync(directory, b => b.AddSalsaSilo(settings));
        using var client = await Silos.StartEmbeddedAsync(directory, b => b.AddSalsaClusterClient(settings));
        await mixture.StoreAsync(client.Services.GetRequiredService<IDataStore>(), Token);
        var grains = client.Services.GetRequiredService<IClusterClient>();
        var job = Guid.NewGuid();

        await grains.GetGrain<IKMeansJobGrain>(job).StartAsync(KMeansJobSpec.From(mixture.Id, 2, Options));
        var (view, result) = await Jobs.ResultAsync<IKMeansJobGrain, KMeansResult>(grains, job, Token);

        Mixture.AssertSameBits(mixture.Reference(2, Options), result);
        Assert.Single(view.Silos);
        await client.StopAsync(Token);
        await silo.StopAsync(Token);
    }

    [Fact]
    public async Task Job_WithInvalidOptions_IsRefusedAndNotStarted()
    {
        using var directory = new TemporaryDirectory();
        using var silo = await Silos.StartEmbeddedAsync(directory, b => b.AddSalsaSilo(new SiloSettings { SiloPort = Silos.FreePort(), GatewayPort = Silos.FreePort() }));
        var grains = silo.Services.GetRequiredService<IGrainFactory>();
        var job = Guid.NewGuid();

        await Assert.ThrowsAnyAsync<Exception>(() => grains.GetGrain<IKMeansJobGrain>(job).StartAsync(KMeansJobSpec.From(Guid.NewGuid(), 3, Options with { Restarts = 0 })));

        Assert.Null((await grains.GetGrain<IKMeansJobGrain>(job).GetAsync()).Status);
        await silo.StopAsync(Token);
    }
}
