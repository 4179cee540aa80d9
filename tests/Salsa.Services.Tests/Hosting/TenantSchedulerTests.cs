using System.Collections.Concurrent;
using Salsa.Hosting.Scheduling;

namespace Salsa.Services.Tests.Hosting;

/// <summary>
/// The tenant scheduler behind the gateway's runs and every service's jobs: each tenant's share of
/// the queue, tenants served in turn, slots never over-given — in order, and under contention (many
/// threads enqueuing, cancelling and completing at once, thousands of trials).
/// </summary>
public sealed class TenantSchedulerTests
{
    [Fact]
    public void OneTenantFillsItsShare_RefusedAlone_AnotherTenantsItemRunsNext()
    {
        var started = new List<string>();
        var scheduler = new TenantScheduler<string>(new TenantShares(Slots: 1, MaxQueued: 8, MaxQueuedPerTenant: 3, MaxRunningPerTenant: 1), started.Add);

        Assert.Equal(SchedulerRefusal.None, scheduler.TryEnqueue("a", "a1")); // runs at once
        foreach (var item in new[] { "a2", "a3", "a4" })
        {
            Assert.Equal(SchedulerRefusal.None, scheduler.TryEnqueue("a", item));
        }

        Assert.Equal(SchedulerRefusal.TenantQueueFull, scheduler.TryEnqueue("a", "a5"));
        Assert.Equal(SchedulerRefusal.None, scheduler.TryEnqueue("b", "b1"));
        Assert.Equal(SchedulerRefusal.None, scheduler.TryEnqueue("c", "c1"));
        Assert.Equal(["a1"], started);

        for (var i = 0; i < 5; i++)
        {
            scheduler.Completed(started[^1][..1]);
        }

        // a's backlog does not run before the tenants that came after it: they have not been served yet.
        Assert.Equal(["a1", "b1", "c1", "a2", "a3", "a4"], started);
        Assert.Contains("You have as many jobs waiting as one tenant may queue here: 3 (Per)", scheduler.Describe(SchedulerRefusal.TenantQueueFull, "jobs", "Per", "All"), StringComparison.Ordinal);
    }

    [Fact]
    public void WholeQueueFull_RefusedForEveryone_RequeuedWorkIsNever()
    {
        var scheduler = new TenantScheduler<string>(new TenantShares(Slots: 1, MaxQueued: 2, MaxQueuedPerTenant: 2, MaxRunningPerTenant: 1), _ => { });
        scheduler.TryEnqueue("a", "running");
        scheduler.TryEnqueue("a", "a1");
        scheduler.TryEnqueue("b", "b1");

        Assert.Equal(SchedulerRefusal.QueueFull, scheduler.TryEnqueue("c", "c1"));
        scheduler.Requeue("c", "resumed"); // accepted before a restart
        Assert.Equal(3, scheduler.Queued);
    }

    [Fact]
    public void ATenantAlone_UsesEverySlotItMayHold_AndNoMore()
    {
        var started = new List<string>();
        var scheduler = new TenantScheduler<string>(new TenantShares(Slots: 4, MaxQueued: 16, MaxQueuedPerTenant: 16, MaxRunningPerTenant: 2), started.Add);
        foreach (var item in new[] { "a1", "a2", "a3" })
        {
            scheduler.TryEnqueue("a", item);
        }

        Assert.Equal(["a1", "a2"], started); // two of four: the others stay free for other tenants
        scheduler.TryEnqueue("b", "b1");
        Assert.Equal(["a1", "a2", "b1"], started);
        scheduler.Completed("a");
        Assert.Equal(["a1", "a2", "b1", "a3"], started);
    }

    [Fact]
    public void AllSlotsHeld_ATenantHoldingNone_TakesTheSpare_TheHolderNeverDoes()
    {
        var started = new List<string>();
        var scheduler = new TenantScheduler<string>(new TenantShares(Slots: 1, MaxQueued: 8, MaxQueuedPerTenant: 4, MaxRunningPerTenant: 1, Spare: 1), started.Add);
        scheduler.TryEnqueue("long", "long1");
        scheduler.TryEnqueue("long", "long2"); // waits: the holder of the slot never takes the spare
        Assert.Equal(["long1"], started);

        scheduler.TryEnqueue("short", "short1"); // starts at once, beside long1
        scheduler.TryEnqueue("other", "other1"); // waits: the one spare is held
        Assert.Equal(["long1", "short1"], started);
        Assert.Equal(2, scheduler.Running);

        scheduler.Completed("short");
        Assert.Equal(["long1", "short1", "other1"], started); // the spare again, to a tenant holding none

        scheduler.Completed("long"); // long holds none now: its next starts, in turn
        Assert.Equal(["long1", "short1", "other1", "long2"], started);
        scheduler.Completed("other");
        scheduler.Completed("long");
        Assert.Equal(0, scheduler.Running);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(2)]
    public async Task ManyThreads_EnqueueCancelComplete_EveryItemEndsOnceAndNoShareIsExceeded(int spare)
    {
        const int Trials = 2_000;
        for (var trial = 0; trial < Trials; trial++)
        {
            var shares = new TenantShares(Slots: 3, MaxQueued: 12, MaxQueuedPerTenant: 5, MaxRunningPerTenant: 2, Spare: spare);
            var running = new ConcurrentDictionary<string, int>();
            var violations = new ConcurrentQueue<string>();
            var startedTimes = new ConcurrentDictionary<int, int>();
            var ready = new ConcurrentQueue<(string Tenant, int Item)>();
            var total = 0;
            TenantScheduler<Box>? scheduler = null;
            scheduler = new TenantScheduler<Box>(shares, box =>
            {
                startedTimes.AddOrUpdate(box.Id, 1, (_, n) => n + 1);
                var now = running.AddOrUpdate(box.Tenant, 1, (_, n) => n + 1);
                if (now > shares.MaxRunningPerTenant)
                {
                    violations.Enqueue($"tenant {box.Tenant} holds {now} slots");
                }

                // Counted after the scheduler's decisions (a start's callback runs outside its lock), so
                // these counts never exceed the scheduler's own: a count past a bound is a real excess.
                // Which start took a spare slot cannot be told from here; the test above shows who may.
                var held = Interlocked.Increment(ref total);
                if (held > shares.Slots + shares.Spare)
                {
                    violations.Enqueue($"{held} slots held");
                }

                ready.Enqueue((box.Tenant, box.Id));
            });

            var accepted = new ConcurrentBag<Box>();
            var removed = new ConcurrentBag<Box>();
            using var go = new Barrier(6);
            var workers = Enumerable.Range(0, 6).Select(w => Task.Run(() =>
            {
                var random = new Random((trial * 31) + w);
                go.SignalAndWait();
                for (var i = 0; i < 40; i++)
                {
                    var tenant = $"t{random.Next(4)}";
                    var box = new Box(tenant, (w * 1000) + i);
                    if (scheduler.TryEnqueue(tenant, box) == SchedulerRefusal.None)
                    {
                        accepted.Add(box);
                        if (random.Next(5) == 0 && scheduler.TryRemove(tenant, box))
                        {
                            removed.Add(box);
                        }
                    }

                    // Complete what runs, as the work it stands for would end.
                    while (random.Next(2) == 0 && ready.TryDequeue(out var done))
                    {
                        running.AddOrUpdate(done.Tenant, 0, (_, n) => n - 1);
                        Interlocked.Decrement(ref total);
                        scheduler.Completed(done.Tenant);
                    }
                }
            }, TestContext.Current.CancellationToken)).ToArray();
            await Task.WhenAll(workers);

            // Drain: everything accepted and not removed runs exactly once.
            while (ready.TryDequeue(out var done))
            {
                running.AddOrUpdate(done.Tenant, 0, (_, n) => n - 1);
                Interlocked.Decrement(ref total);
                scheduler.Completed(done.Tenant);
            }

            Assert.Empty(violations);
            Assert.Equal(0, scheduler.Queued);
            Assert.Equal(0, scheduler.Running);
            var expected = accepted.Select(b => b.Id).Except(removed.Select(b => b.Id)).Order();
            Assert.Equal(expected, startedTimes.Keys.Order());
            Assert.All(startedTimes.Values, n => Assert.Equal(1, n));
            Assert.Empty(removed.Select(b => b.Id).Intersect(startedTimes.Keys));
        }
    }

    private sealed record Box(string Tenant, int Id);
}
