using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Salsa.Cluster.Partitions;
using Salsa.Store;
using Salsa.Testing;

namespace Salsa.Cluster.Tests;

/// <summary>
/// A dataset split into a fixed grid of partition grains that load their rows from the store: one
/// Lloyd step's sums, folded in partition order, are the same bits on one silo or two, and the
/// same as the grid computed in this process.
/// </summary>
public sealed class PartitionTests(PostgresFixture postgres)
{
    private const int Points = 5_003;
    private const int Partitions = 8;

    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task AssignmentSums_OverAFixedGrid_SameBitsOnOneSiloOrTwo_AndAsInOneProcess()
    {
        var connectionString = await postgres.NewDatabaseAsync();
        await OrleansSchema.ApplyAsync(connectionString, Token);
        var random = new Random(20261125);
        var values = Enumerable.Range(0, Points * 2).Select(_ => (random.NextDouble() * 1000) - 500).ToArray();
        var weights = Enumerable.Range(0, Points).Select(_ => Math.Round(random.NextDouble() * 3000)).ToArray();
        var centres = Enumerable.Range(0, 7 * 2).Select(_ => (random.NextDouble() * 800) - 400).ToArray();
        var dataset = Guid.NewGuid();

        var grid = PartitionKey.Grid(dataset, Partitions).ToList();
        var local = InOneProcess(grid, values, weights, 2, centres);

        void Store(IHostApplicationBuilder builder)
        {
            builder.Configuration[$"ConnectionStrings:{DataStoreServiceCollectionExtensions.ConnectionStringName}"] = connectionString;
            builder.Services.AddDataStore(builder.Configuration);
        }

        AssignmentSums oneSilo;
        using (var silo = await Silos.StartAsync(connectionString, $"one-{Guid.NewGuid():N}", Store))
        {
            var store = silo.Services.GetRequiredService<IDataStore>();
            await store.CreateDatasetAsync(
                new DatasetInfo { Id = dataset, Name = "partitioned", Kind = DatasetKind.Dense, Count = Points, Dimension = 2, TotalWeight = weights.Sum(), Created = DateTimeOffset.UtcNow },
                new DatasetContent { Values = values, Weights = weights }, Token);
            oneSilo = await SumAsync(silo.Services.GetRequiredService<IGrainFactory>(), grid, centres);
        }

        var clusterId = $"two-{Guid.NewGuid():N}";
        using var first = await Silos.StartAsync(connectionString, clusterId, Store);
        using var second = await Silos.StartAsync(connectionString, clusterId, Store);
        var grains = first.Services.GetRequiredService<IGrainFactory>();
        await Silos.ActiveSilosAsync(first, 2);
        var twoSilos = await SumAsync(grains, grid, centres);

        Assert.Equal(2, (await Task.WhenAll(grid.Select(k => grains.GetGrain<IPartitionGrain>(k.ToGrainKey()).SiloAsync()))).Distinct().Count());
        Assert.Equal(Points, (await Task.WhenAll(grid.Select(k => grains.GetGrain<IPartitionGrain>(k.ToGrainKey()).PointsAsync()))).Sum());
        AssertSameBits(local, oneSilo);
        AssertSameBits(local, twoSilos);
        Assert.Equal(Points, local.Counts.Sum());
    }

    [Fact]
    public async Task AssignmentSums_OnTheEmbeddedSingleSilo_WithNoPostgres_AreTheLocalSums()
    {
        // The embedded default: one silo on localhost clustering, the store a SQLite file.
        using var directory = new TemporaryDirectory();
        var random = new Random(7);
        var values = Enumerable.Range(0, 999 * 3).Select(_ => random.NextDouble()).ToArray();
        var weights = Enumerable.Repeat(1.0, 999).ToArray();
        var centres = values[..(4 * 3)];
        var dataset = Guid.NewGuid();
        var grid = PartitionKey.Grid(dataset, 3).ToList();
        var builder = Microsoft.Extensions.Hosting.Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Configuration[DataStoreServiceCollectionExtensions.SqlitePathKey] = directory.Combine("salsa.db");
        builder.Services.AddDataStore(builder.Configuration);
        builder.AddSalsaSilo(new SiloSettings { SiloPort = Silos.FreePort(), GatewayPort = Silos.FreePort() });
        using var silo = builder.Build();
        await silo.StartAsync(Token);
        var store = silo.Services.GetRequiredService<IDataStore>();
        await store.CreateDatasetAsync(
            new DatasetInfo { Id = dataset, Name = "embedded", Kind = DatasetKind.Dense, Count = 999, Dimension = 3, TotalWeight = 999, Created = DateTimeOffset.UtcNow },
            new DatasetContent { Values = values, Weights = weights }, Token);

        var sums = await SumAsync(silo.Services.GetRequiredService<IGrainFactory>(), grid, centres);

        AssertSameBits(InOneProcess(grid, values, weights, 3, centres), sums);
        await silo.StopAsync(Token);
    }

    /// <summary>The grid's sums computed here, partition by partition, folded in partition order.</summary>
    private static AssignmentSums InOneProcess(IReadOnlyList<PartitionKey> grid, double[] values, double[] weights, int dimension, double[] centres) =>
        AssignmentSums.Fold([.. grid.Select(k =>
        {
            var (start, end) = k.Rows(weights.Length);
            return AssignmentSums.Compute(values.AsSpan(start * dimension, (end - start) * dimension), weights.AsSpan(start, end - start), dimension, centres);
        })]);

    private static async Task<AssignmentSums> SumAsync(IGrainFactory grains, IReadOnlyList<PartitionKey> grid, double[] centres) =>
        AssignmentSums.Fold(await Task.WhenAll(grid.Select(k => grains.GetGrain<IPartitionGrain>(k.ToGrainKey()).AssignAsync(centres))));

    private static void AssertSameBits(AssignmentSums expected, AssignmentSums actual)
    {
        Assert.Equal(expected.Sums.Select(BitConverter.DoubleToInt64Bits), actual.Sums.Select(BitConverter.DoubleToInt64Bits));
        Assert.Equal(expected.Weights.Select(BitConverter.DoubleToInt64Bits), actual.Weights.Select(BitConverter.DoubleToInt64Bits));
        Assert.Equal(expected.Counts, actual.Counts);
        Assert.Equal(BitConverter.DoubleToInt64Bits(expected.Cost), BitConverter.DoubleToInt64Bits(actual.Cost));
    }
}
