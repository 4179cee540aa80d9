using System.Security.Cryptography.X509Certificates;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Npgsql;

namespace Salsa.Grid.Tests;

/// <summary>Real silos on loopback ports, and reads of the tables behind them.</summary>
internal static class Silos
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    /// <summary>
    /// A started silo of <paramref name="clusterId"/> (mutual TLS with <paramref name="certificate"/>
    /// when given); a silo that fails to start is stopped, and its failure thrown.
    /// </summary>
    public static async Task<IHost> StartAsync(string connectionString, string clusterId, Action<IHostApplicationBuilder>? configure = null, X509Certificate2? certificate = null)
    {
        var builder = Host.CreateApplicationBuilder();
        builder.Logging.SetMinimumLevel(LogLevel.Warning);
        builder.AddSalsaSilo(new SiloSettings
        {
            ClusterId = clusterId,
            ConnectionString = connectionString,
            SiloPort = FreePort(),
            GatewayPort = FreePort(),
            Certificate = certificate,
        });
        // Several silos share this process: one the cluster declares dead (an intruder turned away)
        // must not end them all, as Orleans does to a silo's process by default.
        builder.Services.AddSingleton<IFatalErrorHandler, SiloOnlyFatalErrors>();
        configure?.Invoke(builder);
        return await StartOrDisposeAsync(builder.Build());
    }

    /// <summary>
    /// A started client of <paramref name="clusterId"/>'s cluster (its PostgreSQL membership), with
    /// <paramref name="certificate"/> when given; a client not connected within <paramref name="limit"/> is stopped, and its failure thrown.
    /// </summary>
    public static async Task<IHost> StartClientAsync(string connectionString, string clusterId, X509Certificate2? certificate = null, TimeSpan? limit = null, ILoggerProvider? logs = null)
    {
        var builder = Host.CreateApplicationBuilder();
        builder.Logging.SetMinimumLevel(LogLevel.Warning);
        if (logs is not null)
        {
            builder.Logging.AddProvider(logs);
        }

        builder.AddSalsaClusterClient(new SiloSettings { ClusterId = clusterId, ConnectionString = connectionString, Certificate = certificate });
        return await StartOrDisposeAsync(builder.Build(), limit);
    }

    private static async Task<IHost> StartOrDisposeAsync(IHost host, TimeSpan? limit = null)
    {
        using var starting = CancellationTokenSource.CreateLinkedTokenSource(Token);
        starting.CancelAfter(limit ?? Timeout.InfiniteTimeSpan);
        try
        {
            await host.StartAsync(starting.Token);
            return host;
        }
        catch
        {
            using var stopping = CancellationTokenSource.CreateLinkedTokenSource(Token);
            stopping.CancelAfter(TimeSpan.FromSeconds(30));
            await host.StopAsync(stopping.Token);
            host.Dispose();
            throw;
        }
    }

    /// <summary>
    /// A started host over a SQLite store in <paramref name="directory"/> — the embedded default's
    /// store — made a silo or a client by <paramref name="configure"/> (e.g. <c>AddSalsaSilo</c>).
    /// </summary>
    public static async Task<IHost> StartEmbeddedAsync(Salsa.Testing.TemporaryDirectory directory, Action<HostApplicationBuilder> configure)
    {
        var builder = Host.CreateApplicationBuilder();
        builder.Logging.ClearProviders();
        builder.Configuration["Store:SqlitePath"] = directory.Combine("salsa.db");
        Store.DataStoreServiceCollectionExtensions.AddDataStore(builder.Services, builder.Configuration);
        configure(builder);
        var host = builder.Build();
        await host.StartAsync(Token);
        return host;
    }

    /// <summary>The store in the PostgreSQL database of <paramref name="connectionString"/>, for a silo's host (the partitions read their rows from it).</summary>
    public static Action<IHostApplicationBuilder> PostgresStore(string connectionString) => builder =>
    {
        builder.Configuration[$"ConnectionStrings:{Salsa.Store.DataStoreServiceCollectionExtensions.ConnectionStringName}"] = connectionString;
        Salsa.Store.DataStoreServiceCollectionExtensions.AddDataStore(builder.Services, builder.Configuration);
    };

    public static int FreePort()
    {
        using var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        listener.Start();
        return ((System.Net.IPEndPoint)listener.LocalEndpoint).Port;
    }

    /// <summary>
    /// Waits for the membership this silo sees to have <paramref name="active"/> active silos, and
    /// its grain manifests to cover exactly those: on the silo's own updates, not on a clock.
    /// </summary>
    public static async Task ActiveSilosAsync(IHost silo, int active)
    {
        using var limit = CancellationTokenSource.CreateLinkedTokenSource(Token);
        limit.CancelAfter(TimeSpan.FromSeconds(90));
        var membership = silo.Services.GetRequiredService<IClusterMembershipService>();
        await foreach (var snapshot in membership.MembershipUpdates.WithCancellation(limit.Token))
        {
            if (snapshot.Members.Values.Count(m => m.Status == SiloStatus.Active) == active)
            {
                break;
            }
        }

        // Placement chooses among the silos whose grain manifests this silo holds, which follow the
        // membership a moment later: wait for those too, or grains may all land on the silos known so far.
        var manifests = silo.Services.GetRequiredService<IClusterManifestProvider>();
        await foreach (var manifest in manifests.Updates.WithCancellation(limit.Token))
        {
            if (manifest.Silos.Count == active)
            {
                return;
            }
        }
    }

    public static async Task<List<T>> QueryAsync<T>(string connectionString, string sql, Func<NpgsqlDataReader, T> read)
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

    public static async Task<int> QueryScalarAsync(string connectionString, string sql) => (await QueryAsync(connectionString, sql, r => r.GetInt32(0))).Single();

    private sealed class SiloOnlyFatalErrors(ILogger<SiloOnlyFatalErrors> log) : IFatalErrorHandler
    {
        public bool IsUnexpected(Exception exception) => true;

        public void OnFatalException(object? sender = null, string? context = null, Exception? exception = null) =>
            log.LogWarning(exception, "Fatal error of an in-process silo (the test process goes on): {Context}", context);
    }
}
