namespace Salsa.Hosting.Compute;

// Design: every service of a process (all of them in the embedded default) runs its jobs' SPMD ranks
// on the same cores. A job of several ranks waits at every pass for its slowest rank, so two such jobs
// sharing cores wait on each other's scheduler slices: on 2 cores, an MDS of 1,000 medoids beside the
// annealing job took 7.1 s instead of 0.26 s. A job therefore takes its ranks when it starts computing,
// as many as the process has cores free (up to the service's Ranks) and never fewer than one, and gives
// them back when it ends. It never waits for cores: a job that finds none free runs one rank, which
// has nobody to wait for, beside the others. Results do not depend on the number of ranks, only time.
/// <summary>The cores of this process, shared by the jobs of every service it hosts.</summary>
public sealed class CoreBudget(int cores)
{
    private int _taken;

    /// <summary>This process's budget: one per core the runtime may use.</summary>
    public static CoreBudget Process { get; } = new(Environment.ProcessorCount);

    public int Cores { get; } = Math.Max(cores, 1);

    /// <summary>Ranks held by running jobs now (above <see cref="Cores"/> while single-rank jobs run beside full ones).</summary>
    public int Taken => Volatile.Read(ref _taken);

    /// <summary>Up to <paramref name="wanted"/> ranks: the cores free now, at least one.</summary>
    public CoreLease Take(int wanted)
    {
        while (true)
        {
            var taken = Volatile.Read(ref _taken);
            var ranks = Math.Max(1, Math.Min(Math.Max(wanted, 1), Cores - taken));
            if (Interlocked.CompareExchange(ref _taken, taken + ranks, taken) == taken)
            {
                return new CoreLease(this, ranks);
            }
        }
    }

    internal void Return(int ranks) => Interlocked.Add(ref _taken, -ranks);
}

/// <summary>Ranks a job holds until it ends; disposing gives them back (once).</summary>
public sealed class CoreLease(CoreBudget budget, int ranks) : IDisposable
{
    private int _returned;

    public int Ranks { get; } = ranks;

    public void Dispose()
    {
        if (Interlocked.Exchange(ref _returned, 1) == 0)
        {
            budget.Return(Ranks);
        }
    }
}
