namespace Salsa.Ccr;

/// <summary>
/// Which rank's flow the calling thread is running, if any: set by the runtime around the code it
/// runs as a rank (a thread-execution body; a task-execution body up to its first suspension and
/// from each resumption to the next). A rank's flow is sequential, so at most one thread holds a
/// given rank at any moment — what lets that thread's sends skip the lock (see Communicator).
/// </summary>
internal static class RankFlow
{
    [ThreadStatic]
    private static RankWaiter? t_current;

    public static bool Runs(RankWaiter rank) => ReferenceEquals(t_current, rank);

    public static RankWaiter? Enter(RankWaiter rank)
    {
        var outer = t_current;
        t_current = rank;
        return outer;
    }

    public static void Exit(RankWaiter? outer) => t_current = outer;
}
