namespace Salsa.Hosting.Compute;

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
