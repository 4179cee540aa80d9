using Microsoft.Extensions.DependencyInjection;
using Salsa.Testing;

namespace Salsa.Grid.Tests;

/// <summary>
/// Reminders in PostgreSQL through Orleans' ADO.NET reminder service, on this project's table and
/// stored queries: the reminder table's operations as the provider calls them, and a reminder that
/// wakes its grain.
/// </summary>
public sealed class ReminderTests(PostgresFixture postgres)
{
    private static CancellationToken Token => TestContext.Current.CancellationToken;

    [Fact]
    public async Task ReminderTable_UpsertReadRangesAndVersionedDelete()
    {
        var connectionString = await postgres.NewDatabaseAsync();
        await OrleansSchema.ApplyAsync(connectionString, Token);
        using var silo = await Silos.StartAsync(connectionString, $"test-{Guid.NewGuid():N}");
        var table = silo.Services.GetRequiredService<IReminderTable>();
        var grains = Enumerable.Range(0, 40).Select(i => GrainId.Create("alarm", $"g{i}")).ToList();
        var start = new DateTime(2026, 11, 25, 12, 0, 0, DateTimeKind.Utc);

        var etags = new Dictionary<GrainId, string>();
        foreach (var grain in grains)
        {
            etags[grain] = await table.UpsertRow(new ReminderEntry { GrainId = grain, ReminderName = "ring", StartAt = start, Period = TimeSpan.FromMinutes(1) })
                ?? throw new InvalidOperationException("no etag");
        }

        var again = await table.UpsertRow(new ReminderEntry { GrainId = grains[0], ReminderName = "ring", StartAt = start.AddHours(1), Period = TimeSpan.FromMinutes(2) })
            ?? throw new InvalidOperationException("no etag");
        Assert.NotEqual(etags[grains[0]], again);
        var row = await table.ReadRow(grains[0], "ring") ?? throw new InvalidOperationException("no row");
        Assert.Equal((start.AddHours(1), TimeSpan.FromMinutes(2), again), (row.StartAt.ToUniversalTime(), row.Period, row.ETag));
        Assert.Single((await table.ReadRows(grains[1])).Reminders);

        // Any split of the hash ring, wrapping or not, returns every reminder exactly once.
        foreach (var cut in new uint[] { 0, 1, 0x4000_0000, 0x8000_0000, 0xC000_0000, uint.MaxValue })
        {
            var mid = unchecked(cut + 0x8000_0000);
            var halves = (await table.ReadRows(cut, mid)).Reminders.Concat((await table.ReadRows(mid, cut)).Reminders).Select(r => r.GrainId).ToList();
            Assert.Equal(grains.Order(), halves.Order());
        }

        Assert.False(await table.RemoveRow(grains[0], "ring", etags[grains[0]])); // stale etag
        Assert.True(await table.RemoveRow(grains[0], "ring", again));
        Assert.Null(await table.ReadRow(grains[0], "ring"));
    }

    [Fact]
    public async Task Reminder_WakesItsGrain()
    {
        var connectionString = await postgres.NewDatabaseAsync();
        await OrleansSchema.ApplyAsync(connectionString, Token);
        using var silo = await Silos.StartAsync(connectionString, $"test-{Guid.NewGuid():N}");
        var alarm = silo.Services.GetRequiredService<IGrainFactory>().GetGrain<IAlarmGrain>("wake-me");

        var rung = AlarmGrain.Rung("wake-me");
        await alarm.ArmAsync(TimeSpan.FromSeconds(1));

        await rung.WaitAsync(TimeSpan.FromSeconds(90), Token);
        Assert.True(await alarm.RungAsync() >= 1);
        Assert.Equal([1], await Silos.QueryAsync(connectionString, "SELECT count(*)::integer FROM OrleansRemindersTable", r => r.GetInt32(0)));
    }
}
