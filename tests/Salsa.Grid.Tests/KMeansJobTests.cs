using Microsoft.Extensions.DependencyInjection;
using Salsa.Clustering.KMeans;
using Salsa.Grid.Jobs;
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
        var mixture = new Mixture(2_503, 17);

        var (view, result, _) = await ThroughAClientOfTheEmbeddedSiloAsync(mixture, Options);

        Mixture.AssertSameBits(mixture.Reference(2, Options), result);
        Assert.Single(view.Silos);
    }

    /// <summary>
    /// A result past one part (<see cref="ResultPart.PartChars"/> characters: here 2.3 million
    /// assignments) reaches a client of the silo whole, in parts — one message would be tens of
    /// megabytes, and at tens of millions of points past Orleans' limit on a message.
    /// </summary>
    [Fact]
    public async Task Job_ResultOfMillionsOfAssignments_ReachesAClientInParts()
    {
        var mixture = new Mixture(2_300_000, 5);
        var options = new KMeansOptions { Clusters = 3, Restarts = 1, MaxIterations = 2, Seed = 1 };

        var (_, result, parts) = await ThroughAClientOfTheEmbeddedSiloAsync(mixture, options);

        Assert.True(parts > 1, $"{parts} part");
        Mixture.AssertSameBits(mixture.Reference(2, options), result);
    }

    /// <summary>
    /// The embedded default: the gateway's process is one silo on localhost clustering (SQLite
    /// store), and the services it hosts reach it as clients on its gateway port. A job of
    /// <paramref name="mixture"/> on 2 partitions through such a client: its view, result and the
    /// parts its result came in.
    /// </summary>
    private static async Task<(GridJobView View, KMeansResult Result, int Parts)> ThroughAClientOfTheEmbeddedSiloAsync(Mixture mixture, KMeansOptions options)
    {
        using var directory = new TemporaryDirectory();
        var settings = new SiloSettings { SiloPort = Silos.FreePort(), GatewayPort = Silos.FreePort() };
        using var silo = await Silos.StartEmbeddedAsync(directory, b => b.AddSalsaSilo(settings));
        using var client = await Silos.StartEmbeddedAsync(directory, b => b.AddSalsaClusterClient(settings));
        await mixture.StoreAsync(client.Services.GetRequiredService<IDataStore>(), Token);
        var grains = client.Services.GetRequiredService<IClusterClient>();
        var job = Guid.NewGuid();

        await grains.GetGrain<IKMeansJobGrain>(job).StartAsync(KMeansJobSpec.From(mixture.Id, 2, options));
        var (view, result) = await Jobs.ResultAsync<IKMeansJobGrain, KMeansResult>(grains, job, Token);
        var parts = (await grains.GetGrain<IKMeansJobGrain>(job).ResultPartAsync(0))!.Parts;
        await client.StopAsync(Token);
        await silo.StopAsync(Token);
        return (view, result, parts);
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
