using Microsoft.Extensions.Options;
using Salsa.Hosting;
using Salsa.Hosting.Errors;
using Salsa.Hosting.Rpc;

namespace Salsa.Services.Tests.Hosting;

/// <summary>
/// The stream caps under contention: many threads opening and closing streams of a few keys and
/// tenants at once, thousands of times, races provoked by a barrier; no count ever passes its cap,
/// every refusal is a cap that was full, and every slot comes back.
/// </summary>
public sealed class StreamSlotsTests
{
    [Fact]
    public async Task ManyThreadsAtOnce_NoCapEverPassed_EveryRefusalAFullCap_AllSlotsReturned()
    {
        const int PerKey = 3, PerTenant = 5, InAll = 8, Threads = 16, Trials = 1000;
        var slots = new StreamSlots(Options.Create(new ServiceLimits { MaxStreamsPerKey = PerKey, MaxStreamsPerTenant = PerTenant, MaxStreams = InAll }));
        string[] tenants = ["alpha", "beta", "gamma"];
        var byKey = new int[6]; // keys 0–5: key k of tenant k % 3
        var byTenant = new int[3];
        var inAll = 0;
        var (granted, refused, overCap) = (0, 0, 0);
        using var start = new Barrier(Threads);

        await Task.WhenAll(Enumerable.Range(0, Threads).Select(thread => Task.Run(async () =>
        {
            var random = new Random(thread);
            start.SignalAndWait();
            for (var trial = 0; trial < Trials; trial++)
            {
                // Each trial holds up to nine streams at once, one more than the process's eight, so
                // the caps are contended even when the threads happen to run one after another.
                var held = new List<(int Key, int Tenant, IDisposable Slot)>();
                for (var open = 0; open < 9; open++)
                {
                    var key = random.Next(byKey.Length);
                    var tenant = key % tenants.Length;
                    try
                    {
                        held.Add((key, tenant, slots.Acquire($"key-{key}", tenants[tenant])));
                    }
                    catch (QueueFullException)
                    {
                        Interlocked.Increment(ref refused);
                        continue;
                    }

                    Interlocked.Increment(ref granted);
                    // Counted by the test after the grant: each must be within its cap while held.
                    if (Interlocked.Increment(ref byKey[key]) > PerKey | Interlocked.Increment(ref byTenant[tenant]) > PerTenant | Interlocked.Increment(ref inAll) > InAll)
                    {
                        Interlocked.Increment(ref overCap);
                    }

                    if (random.Next(4) == 0)
                    {
                        await Task.Yield();
                    }
                }

                foreach (var (key, tenant, slot) in held)
                {
                    Interlocked.Decrement(ref byKey[key]);
                    Interlocked.Decrement(ref byTenant[tenant]);
                    Interlocked.Decrement(ref inAll);
                    slot.Dispose();
                    slot.Dispose(); // twice returns it once
                }
            }
        }, TestContext.Current.CancellationToken)));

        Assert.Equal(0, overCap);
        Assert.Equal(Threads * Trials * 9, granted + refused);
        Assert.True(granted > 0 && refused > 0, $"{granted} granted, {refused} refused: the caps were never contended");
        Assert.Equal(0, slots.Open);

        // Back to empty: each cap is whole again.
        var again = Enumerable.Range(0, PerKey).Select(_ => slots.Acquire("key-0", "alpha")).ToList();
        Assert.Throws<QueueFullException>(() => slots.Acquire("key-0", "alpha"));
        again.ForEach(s => s.Dispose());
    }

    [Fact]
    public void TheServiceKey_CountsOnlyInAll()
    {
        var slots = new StreamSlots(Options.Create(new ServiceLimits { MaxStreamsPerKey = 1, MaxStreamsPerTenant = 1, MaxStreams = 3 }));
        var held = Enumerable.Range(0, 3).Select(_ => slots.Acquire(null, null)).ToList();
        var refusal = Assert.Throws<QueueFullException>(() => slots.Acquire(null, null));
        Assert.StartsWith("This service holds 3 streams open", refusal.Message, StringComparison.Ordinal);
        held.ForEach(s => s.Dispose());
    }
}
