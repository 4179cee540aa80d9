using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Salsa.Testing;

namespace Salsa.Grid.Tests;

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

        var keys = await Silos.QueryAsync(connectionString, "SELECT QueryKey FROM OrleansQuery", r => r.GetString(0));
        // Every key the three providers (clustering, grain storage, reminders) read at start.
        string[] expected =
        [
            "CleanupDefunctSiloEntriesKey", "CleanupDefunctSiloEntryKey", "DeleteMembershipTableEntriesKey", "GatewaysQueryKey", "InsertMembershipKey",
            "InsertMembershipVersionKey", "MembershipReadAllKey", "MembershipReadRowKey", "UpdateIAmAlivetimeKey", "UpdateMembershipKey",
            "ClearStorageKey", "DeleteStorageKey", "ReadFromStorageKey", "WriteToStorageKey",
            "DeleteReminderRowKey", "DeleteReminderRowsKey", "ReadRangeRows1Key", "ReadRangeRows2Key", "ReadReminderRowKey", "ReadReminderRowsKey", "UpsertReminderRowKey",
        ];
        Assert.Equal(expected.Order(StringComparer.Ordinal), keys.Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task TwoSilos_JoinThroughPostgres_ServeGrainsTogether_AndOneLeavingIsSeen()
    {
        var connectionString = await postgres.NewDatabaseAsync();
        await OrleansSchema.ApplyAsync(connectionString, Token);
        var clusterId = $"test-{Guid.NewGuid():N}";

        using var first = await Silos.StartAsync(connectionString, clusterId);
        using var second = await Silos.StartAsync(connectionString, clusterId);
        var grains = first.Services.GetRequiredService<IGrainFactory>();
        var management = grains.GetGrain<IManagementGrain>(0);
        await Silos.ActiveSilosAsync(first, 2);
        Assert.Equal(2, (await management.GetHosts(onlyActive: true)).Count);

        // Grains are placed on both: the cluster is one.
        var silos = new HashSet<string>(StringComparer.Ordinal);
        for (var i = 0; i < 64; i++)
        {
            silos.Add(await grains.GetGrain<IWhereGrain>(i).SiloAsync());
        }

        Assert.Equal(2, silos.Count);
        Assert.Equal([3, 3], await Silos.QueryAsync(connectionString, "SELECT status FROM orleans_membership ORDER BY port", r => r.GetInt32(0)));

        await second.StopAsync(Token);
        await Silos.ActiveSilosAsync(first, 1);
        var statuses = await Silos.QueryAsync(connectionString, "SELECT status FROM orleans_membership ORDER BY status", r => r.GetInt32(0));
        Assert.Equal([3, 6], statuses); // active, dead
        Assert.True(await Silos.QueryScalarAsync(connectionString, "SELECT version FROM orleans_membership_version") >= 4);
    }

    [Fact]
    public async Task AClientStartedBeforeAnySilo_WaitsForOne_AndThenServes()
    {
        // A database without Orleans' tables yet: what a service sees when it starts before the first silo.
        var connectionString = await postgres.NewDatabaseAsync();
        var clusterId = $"early-{Guid.NewGuid():N}";

        // Synchronised on the client's own report that it found no silo and is asking again.
        using var waiting = new FirstWarning("Salsa.Grid.ClusterConnectionRetry");
        var starting = Silos.StartClientAsync(connectionString, clusterId, limit: TimeSpan.FromMinutes(2), logs: waiting);
        await Task.WhenAny(waiting.Seen, starting).WaitAsync(TimeSpan.FromMinutes(1), Token);
        Assert.False(starting.IsCompleted, starting.Exception?.ToString() ?? "The client started (or failed) without any silo.");
        Assert.True(waiting.Seen.IsCompleted, "The client never said it was waiting for a silo.");

        using var silo = await Silos.StartAsync(connectionString, clusterId);
        using var client = await starting;
        Assert.Equal(4, await client.Services.GetRequiredService<IClusterClient>().GetGrain<ICounterGrain>("early").AddAsync(4));
    }
}

/// <summary>A logger provider that completes <see cref="Seen"/> at the first warning of one category.</summary>
internal sealed class FirstWarning(string category) : ILoggerProvider, ILogger
{
    private readonly TaskCompletionSource _seen = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public Task Seen => _seen.Task;

    public ILogger CreateLogger(string categoryName) => categoryName == category ? this : Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance;

    public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

    public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Warning;

    public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        if (IsEnabled(logLevel))
        {
            _seen.TrySetResult();
        }
    }

    public void Dispose()
    {
    }
}
