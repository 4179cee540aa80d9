namespace Salsa.Hosting.Compute;

// Design: every service of a process (all of them in the embedded default) runs its jobs' SPMD ranks
// on the same cores. A job of several ranks waits at every pass for its slowest rank, so two such jobs
// sharing cores wait on each other's scheduler slices: on 2 cores, an MDS of 1,000 medoids beside the
// annealing job took 7.1 s instead of 0.26 s. A job therefore takes its ranks when it starts computing:
// its share of the cores among the jobs running in the process (which enter the budget as they start,
// before they read their input), no more than are free, up to the service's Ranks and never fewer
// than one; it gives them back when it ends. It never waits for cores: a job that finds none free runs
// one rank, which has nobody to wait for, beside the others. Taking the share rather than every free
// core matters when jobs start together (chem-40k's annealing and Butina): the first to compute no
// longer takes both cores and leaves the other one rank on a core it shares. Results do not depend
// on the number of ranks, only time.
/// <summary>The cores of this process, shared by the jobs of every service it hosts.</summary>
public sealed class CoreBudget(int cores)
{
    private int _taken;
    private int _jobs;

    /// <summary>This process's budget: one per core the runtime may use.</summary>
    public static CoreBudget Process { get; } = new(Environment.ProcessorCount);

    public int Cores { get; } = Math.Max(cores, 1);

    /// <summary>Ranks held by running jobs now (above <see cref="Cores"/> while single-rank jobs run beside full ones).</summary>
    public int Taken => Volatile.Read(ref _taken);

    /// <summary>Jobs running in the process now (entered, not yet ended).</summary>
    public int Jobs => Volatile.Read(ref _jobs);

    /// <summary>A job has started (it counts in every job's share until the ticket is disposed).</summary>
    public IDisposable Enter()
    {
        Interlocked.Increment(ref _jobs);
        return new Ticket(this);
    }

    /// <summary>Up to <paramref name="wanted"/> ranks: the job's share of the cores among the running jobs, no more than are free, at least one.</summary>
    public CoreLease Take(int wanted)
    {
        while (true)
        {
            var taken = Volatile.Read(ref _taken);
            var share = Cores / Math.Max(Volatile.Read(ref _jobs), 1);
            var ranks = Math.Max(1, Math.Min(Math.Min(Math.Max(wanted, 1), share), Cores - taken));
            if (Interlocked.CompareExchange(ref _taken, taken + ranks, taken) == taken)
            {
                return new CoreLease(this, ranks);
            }
        }
    }

    internal void Return(int ranks) => Interlocked.Add(ref _taken, -ranks);

    private sealed class Ticket(CoreBudget budget) : IDisposable
    {
        private int _ended;

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _ended, 1) == 0)
            {
                Interlocked.Decrement(ref budget._jobs);
            }
        }
    }
}
