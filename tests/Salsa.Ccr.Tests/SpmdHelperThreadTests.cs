using Salsa.Ccr.Internal;

namespace Salsa.Ccr.Tests;

/// <summary>Deadlock detection stays out of the way of threads a rank starts itself.</summary>
[Collection(RaceProbes.Collection)] // hooks the process-wide probe
public sealed class SpmdHelperThreadTests
{
    [Theory]
    [InlineData(SpmdExecution.Threads, false)]
    [InlineData(SpmdExecution.Tasks, false)]
    [InlineData(SpmdExecution.Threads, true)]
    [InlineData(SpmdExecution.Tasks, true)]
    public async Task HelperThreadSendsWhileEveryFlowWaits_NotTakenForADeadlock(SpmdExecution execution, bool helperSentBefore)
    {
        // Rank 0 starts a thread of its own that sends to rank 1 only once the watchdog has found both
        // ranks' flows waiting and reported nothing: either deadlock detection is turned off, or the
        // helper's earlier send turned it off by itself.
        var options = new SpmdOptions { DetectDeadlocks = helperSentBefore };
        using var looked = new ManualResetEventSlim();
        using var probe = RaceProbes.On(RaceProbe.DeadlockNotReported, looked.Set);
        var received = 0;
        using var firstSent = new ManualResetEventSlim();
        await SpmdTests.RunAsync(2, execution, Body, options);
        Assert.Equal(helperSentBefore ? 3 : 2, received);

        async ValueTask Body(Communicator comm)
        {
            if (comm.Rank == 0)
            {
                var helper = new Thread(() =>
                {
                    if (helperSentBefore)
                    {
                        comm.Send(1, -1);
                        firstSent.Set();
                    }

                    Assert.True(looked.Wait(TestTimeouts.Hang), "the watchdog never found the flows waiting");
                    comm.Send(1, 1);
                });
                helper.Start();
                if (helperSentBefore)
                {
                    // Before this flow waits: until the helper has sent, nothing tells the runtime about it.
                    Assert.True(firstSent.Wait(TestTimeouts.Hang));
                }

                await comm.ReceiveAsync<int>(1);
                helper.Join();
            }
            else
            {
                if (helperSentBefore)
                {
                    Assert.Equal(-1, await comm.ReceiveAsync<int>(0));
                    Interlocked.Increment(ref received);
                }

                Assert.Equal(1, await comm.ReceiveAsync<int>(0));
                Interlocked.Increment(ref received);
                comm.Send(0, 2);
                Interlocked.Increment(ref received);
            }
        }
    }
}
