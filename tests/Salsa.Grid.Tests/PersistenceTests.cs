using Microsoft.Extensions.DependencyInjection;
using Orleans.Storage;
using Salsa.Testing;

namespace Salsa.Grid.Tests;

/// <summary>
/// Grain state in PostgreSQL through Orleans' ADO.NET grain storage, on this project's tables and
/// stored queries: it outlives the silo that wrote it, and a write from a stale version is refused.
/// </summary>
public sealed class PersistenceTests(PostgresFixture postgres)
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task State_SurvivesTheSiloThatWroteIt()
    {
        var connectionString = await postgres.NewDatabaseAsync();
        await OrleansSchema.ApplyAsync(connectionString, Token);
        var clusterId = $"test-{Guid.NewGuid():N}";

        using (var first = await Silos.StartAsync(connectionString, clusterId))
        {
            var counter = first.Services.GetRequiredService<IGrainFactory>().GetGrain<ICounterGrain>("job-1");
            Assert.Equal(5, await counter.AddAsync(5));
            Assert.Equal(12, await counter.AddAsync(7));
            await first.StopAsync(Token);
        }

        Assert.Equal([2], await Silos.QueryAsync(connectionString, "SELECT version FROM OrleansStorage", r => r.GetInt32(0)));
        using var second = await Silos.StartAsync(connectionString, clusterId);
        Assert.Equal(12, await second.Services.GetRequiredService<IGrainFactory>().GetGrain<ICounterGrain>("job-1").GetAsync());
    }

    [Fact]
    public async Task Write_FromAStaleVersionOrASecondFirstWrite_IsAConflict()
    {
        var connectionString = await postgres.NewDatabaseAsync();
        await OrleansSchema.ApplyAsync(connectionString, Token);
        using var silo = await Silos.StartAsync(connectionString, $"test-{Guid.NewGuid():N}");
        var storage = silo.Services.GetRequiredKeyedService<IGrainStorage>("Default");
        var grain = GrainId.Create("counter", "conflict");

        // Two activations that both think the grain was never stored: one first write wins.
        var (a, b) = (new GrainState<CounterState>(), new GrainState<CounterState>());
        await storage.ReadStateAsync("counter", grain, a);
        await storage.ReadStateAsync("counter", grain, b);
        Assert.Equal((null, false), (a.ETag, a.RecordExists));
        (a.State!.Total, b.State!.Total) = (1, 2);
        await storage.WriteStateAsync("counter", grain, a);
        Assert.Equal("1", a.ETag);
        await Assert.ThrowsAsync<InconsistentStateException>(() => storage.WriteStateAsync("counter", grain, b));

        // A writer that read version 1 cannot write over version 2.
        var stale = new GrainState<CounterState>();
        await storage.ReadStateAsync("counter", grain, stale);
        Assert.Equal(("1", 1), (stale.ETag, stale.State!.Total));
        a.State!.Total = 3;
        await storage.WriteStateAsync("counter", grain, a);
        stale.State!.Total = 4;
        await Assert.ThrowsAsync<InconsistentStateException>(() => storage.WriteStateAsync("counter", grain, stale));

        var read = new GrainState<CounterState>();
        await storage.ReadStateAsync("counter", grain, read);
        Assert.Equal(("2", 3, true), (read.ETag, read.State!.Total, read.RecordExists));

        // Cleared: no payload, a new version, a fresh state on read.
        await storage.ClearStateAsync("counter", grain, read);
        var cleared = new GrainState<CounterState>();
        await storage.ReadStateAsync("counter", grain, cleared);
        Assert.Equal(("3", 0), (cleared.ETag, cleared.State!.Total));
    }
}
