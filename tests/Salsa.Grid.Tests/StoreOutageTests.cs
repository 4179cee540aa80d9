using Microsoft.Extensions.DependencyInjection;
using Npgsql;
using Salsa.Clustering.Annealing;
using Salsa.Grid.Annealing;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Grid.Tests;

/// <summary>
/// The database the partitions read their rows from goes away for a while (restarted, failed over,
/// its name briefly unresolvable — what a silo container's replacement did to the compose
/// deployment's DNS): jobs wait for it instead of failing, and a database failure inside a grain
/// reaches its caller as itself.
/// </summary>
public sealed class StoreOutageTests(PostgresFixture postgres)
{
    private const int Partitions = 4;
    private static readonly AnnealingOptions Options = new() { MaxClusters = 6, CoolingFactor = 0.9 };

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Job_StartedWhileTheDatasetsDatabaseIsDown_WaitsForItAndEndsWithTheSameBits()
    {
        // Membership and job state in the shared server; the datasets in a server of their own, stopped below.
        var membership = await postgres.NewDatabaseAsync();
        await using var datasets = await PostgresServer.StartAsync(Token);
        var mixture = new Mixture(2_001, 7);
        using var silo = await Silos.StartAsync(membership, $"outage-{Guid.NewGuid():N}", Silos.PostgresStore(datasets.ConnectionString));
        await mixture.StoreAsync(silo.Services.GetRequiredService<IDataStore>(), Token);
        var grains = silo.Services.GetRequiredService<IGrainFactory>();

        await datasets.StopAsync(Token);
        var job = Guid.NewGuid();
        await grains.GetGrain<IAnnealingJobGrain>(job).StartAsync(AnnealingJobSpec.From(mixture.Id, Partitions, Options));
        await Task.Delay(TimeSpan.FromSeconds(3), Token);
        var waiting = await grains.GetGrain<IAnnealingJobGrain>(job).GetAsync();
        await datasets.StartAgainAsync(Token);
        var (view, result) = await Jobs.ResultAsync(grains, job, Token);

        Assert.Equal(JobState.Running, waiting.Status);
        Assert.Equal(0, waiting.Passes.Passes);
        Mixture.AssertSameBits(mixture.Reference(Partitions, Options), result);
        Assert.Equal(JobState.Succeeded, view.Status);
    }

    [Fact]
    public async Task DatabaseFailureInAGrain_ReachesAClientAsItself()
    {
        var connectionString = await postgres.NewDatabaseAsync();
        var clusterId = $"failure-{Guid.NewGuid():N}";
        using var silo = await Silos.StartAsync(connectionString, clusterId);
        using var directory = new TemporaryDirectory();
        using var client = await Silos.StartEmbeddedAsync(directory, b => b.AddSalsaClusterClient(new SiloSettings { ClusterId = clusterId, ConnectionString = connectionString }));

        // Across the network, so the exception is serialized: not a codec error, and still transient.
        var failure = await Assert.ThrowsAsync<NpgsqlException>(() => client.Services.GetRequiredService<IGrainFactory>().GetGrain<IStoreFailureGrain>(0).FailAsync());

        Assert.Contains("out of reach", failure.Message, StringComparison.Ordinal);
        Assert.True(failure.IsTransient, "The failure lost its inner TimeoutException on the way.");
    }
}

/// <summary>A grain whose call fails as a partition's does when its database cannot be reached.</summary>
public interface IStoreFailureGrain : IGrainWithIntegerKey
{
    Task FailAsync();
}

public sealed class StoreFailureGrain : Grain, IStoreFailureGrain
{
    public Task FailAsync() => throw new NpgsqlException("The datasets' database is out of reach.", new TimeoutException("The operation has timed out."));
}
