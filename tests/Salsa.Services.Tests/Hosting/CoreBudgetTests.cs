using Salsa.Hosting.Compute;

namespace Salsa.Services.Tests.Hosting;

/// <summary>
/// The cores a process's jobs share (every service in the embedded default): a job takes as many
/// ranks as are free, never fewer than one, and jobs of several ranks never hold more than the cores
/// between them — in order, and under contention (many threads taking and returning at once).
/// </summary>
public sealed class CoreBudgetTests
{
    [Fact]
    public void Take_GivesTheFreeCores_AtLeastOne_AndReturnsThemOnce()
    {
        var budget = new CoreBudget(4);
        using var first = budget.Take(3);
        Assert.Equal(3, first.Ranks);
        var second = budget.Take(3);
        Assert.Equal(1, second.Ranks); // one core free
        using var third = budget.Take(2);
        Assert.Equal(1, third.Ranks); // none free: one rank, which waits for nobody
        Assert.Equal(5, budget.Taken);

        second.Dispose();
        second.Dispose(); // given back once
        Assert.Equal(4, budget.Taken);
        Assert.Equal(1, budget.Take(0).Ranks); // at least one whatever is asked
    }

    [Fact]
    public void JobsRunningTogether_EachTakesItsShare_ALoneJobAllTheCores()
    {
        var budget = new CoreBudget(2);
        using (budget.Enter())
        using (budget.Enter())
        {
            // chem-40k's annealing and Butina: the first to compute no longer takes both cores.
            using var annealing = budget.Take(2);
            using var butina = budget.Take(2);
            Assert.Equal((1, 1), (annealing.Ranks, butina.Ranks));
            Assert.Equal(2, budget.Jobs);
        }

        Assert.Equal((0, 0), (budget.Jobs, budget.Taken));
        var alone = budget.Enter();
        using (var lease = budget.Take(2))
        {
            Assert.Equal(2, lease.Ranks);
        }

        alone.Dispose();
        alone.Dispose(); // leaves once
        Assert.Equal(0, budget.Jobs);
    }

    [Fact]
    public void ManyThreadsTakingAndReturning_MultiRankJobsNeverShareACore_AndEverythingComesBack()
    {
        const int Cores = 4;
        var budget = new CoreBudget(Cores);
        var multiRankHeld = 0;
        var overCommitted = 0;
        var threads = Enumerable.Range(0, 8).Select(t => new Thread(() =>
        {
            var random = new Random(t);
            for (var trial = 0; trial < 20_000; trial++)
            {
                var wanted = random.Next(1, Cores + 2);
                var lease = budget.Take(wanted);
                if (lease.Ranks < 1 || lease.Ranks > Math.Max(wanted, 1))
                {
                    Interlocked.Increment(ref overCommitted);
                }

                if (lease.Ranks > 1 && Interlocked.Add(ref multiRankHeld, lease.Ranks) > Cores)
                {
                    Interlocked.Increment(ref overCommitted);
                }

                Thread.SpinWait(random.Next(0, 50));
                if (lease.Ranks > 1)
                {
                    Interlocked.Add(ref multiRankHeld, -lease.Ranks);
                }

                lease.Dispose();
            }
        })).ToList();
        threads.ForEach(t => t.Start());
        threads.ForEach(t => t.Join());

        Assert.Equal(0, overCommitted);
        Assert.Equal(0, budget.Taken);
    }
}
