using System.Diagnostics;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Npgsql;
using Salsa.Testing;

namespace Salsa.Cluster.Tests;

/// <summary>
/// Silos join one cluster through PostgreSQL, on the tables and stored queries this project
/// writes for Orleans' ADO.NET clustering provider: a real server, real silos on loopback ports.
/// </summary>
public sealed class MembershipTests(PostgresFixture postgres)
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task Schema_AppliedTwiceAndConcurrently_IsTheSameSchema()
    {
        var connectionString = await postgres.NewDatabaseAsync();

        await Task.WhenAll(Enumerable.Range(0, 4).Select(_ => OrleansSchema.ApplyAsync(connectionString, Token)));
        await OrleansSchema.ApplyAsync(connectionString, Token);

        var keys = await QueryAsync(connectionString, "SELECT QueryKey FROM OrleansQuery ORDER BY QueryKey", r => r.GetString(0));
        Assert.Equal(
            ["CleanupDefunctSiloEntriesKey", "CleanupDefunctSiloEntryKey", "DeleteMembershipTableEntriesKey", "GatewaysQueryKey", "InsertMembershipKey",
             "InsertMembershipVersionKey", "MembershipReadAllKey", "MembershipReadRowKey", "UpdateIAmAlivetimeKey", "UpdateMembershipKey"],
            keys);
    }

    [Fact]
    public async Task TwoSilos_JoinThroughPostgres_ServeGrainsTogether_AndOneLeavingIsSeen()
    {
        var connectionString = await postgres.NewDatabaseAsync();
        await OrleansSchema.ApplyAsync(connectionString, Token);
        var clusterId = $"test-{Guid.NewGuid():N}";

        using var first = await StartSiloAsync(connectionString, clusterId);
        using var second = await StartSiloAsync(connectionString, clusterId);
        var grains = first.Services.GetRequiredService<IGrainFactory>();
        var management = grains.GetGrain<IManagementGrain>(0);
        await UntilAsync(async () => (await management.GetHosts(onlyActive: true)).Count == 2, "both silos active");

        // Grains are placed on both: the cluster is one.
        var silos = new HashSet<string>(StringComparer.Ordinal);
        for (var i = 0; i < 64; i++)
        {
            silos.Add(await grains.GetGrain<IWhereGrain>(i).SiloAsync());
        }

        Assert.Equal(2, silos.Count);
        Assert.Equal([3, 3], await QueryAsync(connectionString, "SELECT status FROM orleans_membership ORDER BY port", r => r.GetInt32(0)));

        await second.StopAsync(Token);
        await UntilAsync(async () => (await management.GetHosts(onlyActive: true)).Count == 1, "the stopped silo gone from the active set");
        var statuses = await QueryAsync(connectionString, "SELECT status FROM orleans_membership ORDER BY status", r => r.GetInt32(0));
        Assert.Equal([3, 6], statuses); // active, dead
        Assert.True(await QueryScalarAsync(connectionString, "SELECT version FROM orleans_membership_version") >= 4);
    }

    private static async Task<IHost> StartSiloAsync(string connectionString, string clusterId)
    {
        var builder = Host.CreateApplicationBuilder();
        builder.Logging.SetMinimumLevel(LogLevel.Warning);
        builder.AddSalsaSilo(new SiloSettings
        {
            ClusterId = clusterId,
            ConnectionString = connectionString,
            SiloPort = FreePort(),
            GatewayPort = FreePort(),
        });
        var host = builder.Build();
        await host.StartAsync(Token);
        return host;
    }

    private static int FreePort()
    {
        using var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        listener.Start();
        return ((System.Net.IPEndPoint)listener.LocalEndpoint).Port;
    }

    private static async Task UntilAsync(Func<Task<bool>> condition, string what)
    {
        var clock = Stopwatch.StartNew();
        while (!await condition())
        {
            Assert.True(clock.Elapsed < TimeSpan.FromSeconds(90), $"Timed out waiting for {what}.");
            await Task.Delay(200, Token);
        }
    }

    private static async Task<List<T>> QueryAsync<T>(string connectionString, string sql, Func<NpgsqlDataReader, T> read)
    {
        await using var connection = new NpgsqlConnection(connectionString);
        await connection.OpenAsync(Token);
        await using var command = new NpgsqlCommand(sql, connection);
        await using var reader = await command.ExecuteReaderAsync(Token);
        var rows = new List<T>();
        while (await reader.ReadAsync(Token))
        {
            rows.Add(read(reader));
        }

        return rows;
    }

    private static async Task<int> QueryScalarAsync(string connectionString, string sql) => (await QueryAsync(connectionString, sql, r => r.GetInt32(0))).Single();
}
