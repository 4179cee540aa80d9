using Salsa.Ccr.Internal;

namespace Salsa.Ccr.Tests;

/// <summary>A flow's CPU time and allocations are charged to its account on every thread, and to no other.</summary>
public sealed class CpuAccountTests
{
    private static readonly TimeSpan s_burn = TimeSpan.FromMilliseconds(100);

    [Theory]
    [InlineData(SpmdExecution.Threads)]
    [InlineData(SpmdExecution.Tasks)]
    public async Task SpmdRanks_AreChargedToTheirCaller_AndABusyNeighbourIsNot(SpmdExecution execution)
    {
        Assert.SkipUnless(CpuAccount.IsSupported, "no per-thread CPU clock here");

        // A flow that only waits runs beside the ranks, in an account of its own.
        var idle = Task.Run(async () =>
        {
            using var account = CpuAccount.Begin();
            await Task.Delay(300);
            return account.CpuTime;
        });

        using var ranks = CpuAccount.Begin();
        await SpmdTests.RunAsync(2, execution, comm =>
        {
            Assert.Same(ranks, CpuAccount.Current); // the rank runs in its caller's flow
            Burn(s_burn);
            return ValueTask.CompletedTask;
        });
        var charged = ranks.CpuTime;

        Assert.InRange(charged, 2 * s_burn, TimeSpan.FromSeconds(2));
        Assert.InRange(await idle, TimeSpan.Zero, TimeSpan.FromMilliseconds(50));
    }

    [Fact]
    public async Task ThousandsOfFlowsAcrossThreads_EachChargedItsOwnAllocationsOnly()
    {
        // 1,000 flows at once, each hopping threads at every await, allocate different amounts: a
        // charge that leaked from one to another would be off by whole 64 KB arrays. The slack is the
        // runtime's own work done on a flow's behalf (a thread-pool queue that grows as it enqueues).
        const int Flows = 1_000, Steps = 4, Array = 64 * 1024, Slack = 48 * 1024;
        using var start = new ManualResetEventSlim();
        var flows = Enumerable.Range(0, Flows).Select(i => Task.Run(async () =>
        {
            start.Wait();
            using var account = CpuAccount.Begin();
            var kept = new List<byte[]>(32);
            for (var step = 0; step < Steps; step++)
            {
                for (var a = 0; a < i % 7; a++)
                {
                    kept.Add(new byte[Array]);
                }

                await Task.Yield();
            }

            GC.KeepAlive(kept);
            var settled = account.Settle(TimeSpan.FromSeconds(5));
            return (Own: (long)Steps * (i % 7) * Array, Charged: account.AllocatedBytes, Settled: settled);
        })).ToArray();
        start.Set();
        var results = await Task.WhenAll(flows).OrHang();

        Assert.All(results, r => Assert.True(r.Settled));
        var wrong = results.Where(r => r.Charged < r.Own || r.Charged > r.Own + Slack).ToArray();
        Assert.True(wrong.Length == 0, $"{wrong.Length} of {Flows} accounts charged wrongly, e.g. {string.Join("; ", wrong.Take(3).Select(r => $"own {r.Own:N0} B, charged {r.Charged:N0} B"))}");
    }

    [Fact]
    public void AnInnerAccount_IsChargedAlone_AndTheOuterResumesAfterIt()
    {
        Assert.SkipUnless(CpuAccount.IsSupported, "no per-thread CPU clock here");
        using var outer = CpuAccount.Begin();
        Burn(s_burn);
        TimeSpan inner;
        using (var nested = CpuAccount.Begin())
        {
            Burn(2 * s_burn);
            inner = nested.CpuTime;
        }

        Burn(s_burn);
        Assert.Same(outer, CpuAccount.Current);
        Assert.InRange(inner, 2 * s_burn, 2 * s_burn + TimeSpan.FromMilliseconds(50));
        Assert.InRange(outer.CpuTime, 2 * s_burn, 2 * s_burn + TimeSpan.FromMilliseconds(50));
    }

    [Fact]
    public async Task AfterItEnds_TheFlowIsNoLongerCharged()
    {
        var account = CpuAccount.Begin();
        await Task.Yield();
        account.Dispose();
        var before = account.AllocatedBytes;
        GC.KeepAlive(new byte[64 * 1024]);
        await Task.Yield();
        Assert.Null(CpuAccount.Current);
        Assert.Equal(before, account.AllocatedBytes);
    }

    /// <summary>Spins until the calling thread has used <paramref name="cpu"/> of CPU time.</summary>
    private static void Burn(TimeSpan cpu)
    {
        var until = ThreadCpuClock.Now() + (long)cpu.TotalNanoseconds;
        while (ThreadCpuClock.Now() < until)
        {
            Thread.SpinWait(100);
        }
    }
}
